/**
 * Loading a Whisper model for decoding: Markbook's own onnxruntime sessions (one set of options each,
 * graphs rewritten first), and the token ids decoding needs, read once from the model's configuration.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { MessageChannel } from "node:worker_threads";
import { AutoConfig, AutoProcessor, WhisperForConditionalGeneration, env as transformersEnv } from "@huggingface/transformers";
import type { EngineSettings } from "../engine-protocol";
import { DTYPE_SUFFIX, findModelFolder } from "../model-install";
import { fuseEncoderAttention, shareTiedEmbeddingProjection } from "../onnx-graph";
import { int8LogitsDecoder } from "../onnx-int8-logits";
import { Int8Projection } from "./logits-row";

/* eslint-disable @typescript-eslint/no-explicit-any -- transformers.js's own types are loose here */
export type AnyModel = any;
export type AnyProcessor = any;

export interface LoadedWhisper {
  model: AnyModel;
  processor: AnyProcessor;
  tokens: {
    sot: number;
    eot: number;
    startOfPrev: number;
    noSpeech: number;
    noTimestamps: number;
    timestampBegin: number;
    transcribe: number;
    translate: number;
    languages: Map<number, string>;
    languageIds: Map<string, number>;
  };
  multilingual: boolean;
  supportsWordTimestamps: boolean;
  /** Set when the decoder projects its logits in 8 bits (onnx-int8-logits.ts). */
  projection: Int8Projection | null;
}


/**
 * onnxruntime options per session. transformers.js gives one set to every session; Markbook creates the
 * two sessions itself (loadSessions), so that each gets its own.
 * - disable_quant_qdq: the q8 decoder keeps the tied embedding quantized behind DequantizeLinear, which
 *   onnxruntime would leave in the graph and run at every step (re-creating the 76 MB logits matrix);
 *   with it, constant folding dequantizes it once at load (decoding ~1.5× faster). The encoder's weights
 *   are dynamically quantized (MatMulInteger): the flag changes nothing there.
 * - No CPU arena by default: an arena keeps the largest temporaries a session ever needed for good, the
 *   encoder's (~60 MB for tiny) then sat beside the decoder's. Without it the encoder, whose shapes never
 *   change (one 30 s window), gets its temporaries planned into one block per pass (memory pattern),
 *   given back after the pass; decoding measured no slower. This relies on large blocks going back to
 *   the system when freed: `npm start` and the benchmark set MALLOC_MMAP_THRESHOLD_ (docs/benchmarks.md).
 *   SPEECH_MEMORY_ARENA=true brings the arenas back (encoder ~10% faster, ~40 MB higher peak).
 * - Pre-packing: on for the decoder, whose 8-bit logits projection (onnx-int8-logits.ts) would otherwise
 *   repack its 19 MB matrix at every step (a decoder step 6.4 ms with it, 11 ms without, in bench:speech);
 *   off for the encoder, where it would keep a second copy of the weights for no measurable speed.
 */
function sessionOptions(settings: EngineSettings, role: "encoder" | "decoder") {
  const arena = settings.memoryArena ?? false;
  return {
    executionProviders: ["cpu"],
    intraOpNumThreads: settings.intraOpThreads,
    interOpNumThreads: 1,
    enableCpuMemArena: arena,
    enableMemPattern: role === "encoder" && !arena,
    extra: { session: { disable_quant_qdq: "1", disable_prepacking: role === "decoder" ? "0" : "1" } },
  };
}

/**
 * Gives the memory of these buffers back now rather than at V8's next collection, which may come seconds
 * later (model files are tens of MB for tiny, hundreds for the larger models): a buffer transferred into
 * a message that is never received is freed when its channel closes. onnxruntime keeps no reference to
 * the bytes a session was created from.
 */
function freeNow(...views: (Uint8Array | null)[]) {
  const buffers = views.filter((view): view is Uint8Array => Boolean(view) && view!.byteOffset === 0 && view!.byteLength === view!.buffer.byteLength);
  if (buffers.length === 0) return;
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(null, buffers.map((view) => view.buffer as ArrayBuffer));
  port1.close();
  port2.close();
}

/** The onnxruntime-node module transformers.js itself uses (its tensors must be the ones transformers.js knows). */
export function onnxRuntime(): AnyModel {
  return createRequire(import.meta.resolve("@huggingface/transformers"))("onnxruntime-node");
}

/** The folder holding the model's files on disk: in MODELS_DIR, or in transformers.js' download cache. */
const modelFolderOnDisk = (source: string, settings: EngineSettings) =>
  findModelFolder(settings, source, transformersEnv.useFSCache ? (transformersEnv.cacheDir ?? null) : null);

/**
 * Creates the decoder and encoder sessions from the files, one after the other (two loads side by side
 * raise the peak), each with its own options and rewritten first: the decoder projects its logits in 8
 * bits from the tied embedding as stored (onnx-int8-logits.ts; a decoder not shaped for it has its two
 * branches share one float projection instead, onnx-graph.ts), the encoder's attention runs as fused
 * MultiHeadAttention (no 6 × 1500² score matrices). Reading the files here also
 * avoids transformers.js' loader, which streams every file it is given the path of into memory for
 * nothing (tens of MB of garbage per load).
 */
async function loadSessions(folder: string, settings: EngineSettings, firstTimestamp: number | undefined) {
  const ort = onnxRuntime();
  const suffix = DTYPE_SUFFIX[settings.dtype] ?? "";
  const create = async (role: "encoder" | "decoder", file: string, rewrite: (model: Uint8Array) => Uint8Array | null) => {
    // A model with external data (over 2 GB) loads by path, so that onnxruntime finds its data files.
    const original = fs.existsSync(`${file}_data`) ? null : fs.readFileSync(file);
    const rewritten = original && rewrite(original);
    try {
      const session = await ort.InferenceSession.create(rewritten ?? file, sessionOptions(settings, role));
      session.config = { dtype: settings.dtype, device: "cpu" };
      return session;
    } finally {
      freeNow(original, rewritten);
    }
  };
  let projection: Int8Projection | null = null;
  const decoder = await create("decoder", path.join(folder, "onnx", `decoder_model_merged${suffix}.onnx`), (model) => {
    const int8 = firstTimestamp === undefined || settings.floatLogits ? null : int8LogitsDecoder(model, firstTimestamp);
    if (!int8) return shareTiedEmbeddingProjection(model);
    projection = new Int8Projection(int8.embedding, firstTimestamp!);
    return int8.model;
  });
  const encoder = await create("encoder", path.join(folder, "onnx", `encoder_model${suffix}.onnx`), fuseEncoderAttention);
  return { sessions: { model: encoder, decoder_model_merged: decoder }, projection: projection as Int8Projection | null };
}

export async function loadWhisper(
  source: string,
  settings: EngineSettings,
  onProgress?: (progress: { status: string; file?: string; progress?: number }) => void,
): Promise<LoadedWhisper> {
  let folder = modelFolderOnDisk(source, settings);
  if (!folder) {
    // Not downloaded yet: transformers.js fetches it (with progress) into its cache; the sessions it
    // made are then replaced by Markbook's own, made from the downloaded files.
    const downloaded = await WhisperForConditionalGeneration.from_pretrained(source, {
      dtype: settings.dtype as "q8",
      session_options: sessionOptions(settings, "decoder"),
      progress_callback: onProgress as never,
    });
    folder = modelFolderOnDisk(source, settings);
    if (folder) await downloaded.dispose();
    else return describeModel(downloaded, await AutoProcessor.from_pretrained(source), null);
  }
  const processor = await AutoProcessor.from_pretrained(source);
  const config = await AutoConfig.from_pretrained(source);
  const generationConfigFile = path.join(folder, "generation_config.json");
  const generationConfig = fs.existsSync(generationConfigFile) ? JSON.parse(fs.readFileSync(generationConfigFile, "utf8")) : {};
  const noTimestamps = generationConfig.no_timestamps_token_id;
  const { sessions, projection } = await loadSessions(folder, settings, typeof noTimestamps === "number" ? noTimestamps + 1 : undefined);
  const model = new WhisperForConditionalGeneration(config, sessions, { generation_config: generationConfig });
  return describeModel(model, processor, projection);
}

function describeModel(model: AnyModel, processor: AnyProcessor, projection: Int8Projection | null): LoadedWhisper {
  // transformers.js drops encoder_outputs from generate()'s inputs and re-runs the encoder;
  // letting it through saves one encoder pass per decode.
  model.forward_params = [...model.forward_params, "encoder_outputs"];
  const config = model.generation_config;
  const tokenizer = processor.tokenizer;
  const idOf = (token: string): number => {
    const [id] = tokenizer.convert_tokens_to_ids([token]);
    if (typeof id !== "number") throw new Error(`the tokenizer has no ${token}`);
    return id;
  };
  const languages = new Map<number, string>();
  const languageIds = new Map<string, number>();
  for (const [token, id] of Object.entries((config.lang_to_id ?? {}) as Record<string, number>)) {
    const code = token.slice(2, -2);
    languages.set(id, code);
    languageIds.set(code, id);
  }
  const decoderOutputs: string[] = model.sessions.decoder_model_merged.outputNames;
  return {
    model,
    processor,
    tokens: {
      sot: config.decoder_start_token_id,
      eot: Array.isArray(config.eos_token_id) ? config.eos_token_id[0] : config.eos_token_id,
      startOfPrev: idOf("<|startofprev|>"),
      noSpeech: config.no_speech_token_id ?? idOf("<|nocaptions|>"),
      noTimestamps: config.no_timestamps_token_id,
      timestampBegin: config.no_timestamps_token_id + 1,
      transcribe: config.task_to_id?.transcribe,
      translate: config.task_to_id?.translate,
      languages,
      languageIds,
    },
    multilingual: Boolean(config.is_multilingual),
    supportsWordTimestamps: Boolean(config.alignment_heads) && decoderOutputs.some((name) => name.startsWith("cross_attentions")),
    projection,
  };
}

export async function disposeWhisper(loaded: LoadedWhisper) {
  await loaded.model.dispose?.();
}
