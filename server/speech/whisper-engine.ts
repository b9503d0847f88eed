/**
 * Whisper decoding on transformers.js, with what transformers.js lacks done here: language detection,
 * the prompt, OpenAI's temperature fallback, segment statistics, word timestamps, long audio window by
 * window. Runs inside an engine worker thread (never on the server's event loop).
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { MessageChannel } from "node:worker_threads";
import zlib from "node:zlib";
import {
  AutoConfig,
  AutoProcessor,
  LogitsProcessor,
  SuppressTokensAtBeginLogitsProcessor,
  Tensor,
  WhisperForConditionalGeneration,
  WhisperTimeStampLogitsProcessor,
  env as transformersEnv,
} from "@huggingface/transformers";
import { SAMPLE_RATE, isSilent } from "./audio";
import type { EngineSettings, TranscribeRequest, TranscribeResult } from "./engine-protocol";
import { fuseEncoderAttention, shareTiedEmbeddingProjection } from "./onnx-graph";
import type { Segment, Word } from "./formats";

const WINDOW_SECONDS = 30;
const WINDOW_SAMPLES = WINDOW_SECONDS * SAMPLE_RATE;
const TIME_PRECISION = 0.02;
const HOP_LENGTH = 160;
/** Whisper's decoder has 448 positions; OpenAI keeps at most 223 prompt tokens. */
const MAX_TARGET_POSITIONS = 448;
const MAX_PROMPT_TOKENS = 223;

export class CancelledError extends Error {
  constructor() {
    super("cancelled");
    this.name = "CancelledError";
  }
}

/* eslint-disable @typescript-eslint/no-explicit-any -- transformers.js's own types are loose here */
type AnyModel = any;
type AnyProcessor = any;

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
}

/** transformers.js' file names per dtype (`encoder_model_quantized.onnx` for q8). */
const DTYPE_SUFFIX: Record<string, string> = { fp32: "", fp16: "_fp16", q8: "_quantized", int8: "_int8", uint8: "_uint8", q4: "_q4" };

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
 * - Pre-packing would keep a second copy of the weights for no measurable speed here.
 */
function sessionOptions(settings: EngineSettings, role: "encoder" | "decoder") {
  const arena = settings.memoryArena ?? false;
  return {
    executionProviders: ["cpu"],
    intraOpNumThreads: settings.intraOpThreads,
    interOpNumThreads: 1,
    enableCpuMemArena: arena,
    enableMemPattern: role === "encoder" && !arena,
    extra: { session: { disable_quant_qdq: "1", disable_prepacking: "1" } },
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
function onnxRuntime(): AnyModel {
  return createRequire(import.meta.resolve("@huggingface/transformers"))("onnxruntime-node");
}

/** The folder holding the model's files on disk: in MODELS_DIR, or in transformers.js' download cache. */
function modelFolderOnDisk(source: string, settings: EngineSettings): string | null {
  const roots = path.isAbsolute(source) ? [""] : [settings.modelsDir, transformersEnv.useFSCache ? transformersEnv.cacheDir : null];
  for (const root of roots) {
    if (root === null || root === undefined) continue;
    const folder = path.join(root, source);
    const suffix = DTYPE_SUFFIX[settings.dtype] ?? "";
    const files = ["config.json", `onnx/encoder_model${suffix}.onnx`, `onnx/decoder_model_merged${suffix}.onnx`];
    if (files.every((file) => fs.existsSync(path.join(folder, file)))) return folder;
  }
  return null;
}

/**
 * Creates the decoder and encoder sessions from the files, one after the other (two loads side by side
 * raise the peak), each with its own options and rewritten first (onnx-graph.ts): the decoder's two
 * branches share one tied-embedding projection (one 76 MB matrix instead of two for tiny), the encoder's
 * attention runs as fused MultiHeadAttention (no 6 × 1500² score matrices). Reading the files here also
 * avoids transformers.js' loader, which streams every file it is given the path of into memory for
 * nothing (tens of MB of garbage per load).
 */
async function loadSessions(folder: string, settings: EngineSettings) {
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
  const decoder = await create("decoder", path.join(folder, "onnx", `decoder_model_merged${suffix}.onnx`), shareTiedEmbeddingProjection);
  const encoder = await create("encoder", path.join(folder, "onnx", `encoder_model${suffix}.onnx`), fuseEncoderAttention);
  return { model: encoder, decoder_model_merged: decoder };
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
    else return describeModel(downloaded, await AutoProcessor.from_pretrained(source));
  }
  const processor = await AutoProcessor.from_pretrained(source);
  const config = await AutoConfig.from_pretrained(source);
  const generationConfigFile = path.join(folder, "generation_config.json");
  const generationConfig = fs.existsSync(generationConfigFile) ? JSON.parse(fs.readFileSync(generationConfigFile, "utf8")) : {};
  const sessions = await loadSessions(folder, settings);
  const model = new WhisperForConditionalGeneration(config, sessions, { generation_config: generationConfig });
  return describeModel(model, processor);
}

function describeModel(model: AnyModel, processor: AnyProcessor): LoadedWhisper {
  const anyModel = model as AnyModel;
  // transformers.js drops encoder_outputs from generate()'s inputs and re-runs the encoder;
  // letting it through saves one encoder pass per decode.
  anyModel.forward_params = [...anyModel.forward_params, "encoder_outputs"];
  const config = anyModel.generation_config;
  const tokenizer = (processor as AnyProcessor).tokenizer;
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
  const decoderOutputs: string[] = anyModel.sessions.decoder_model_merged.outputNames;
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
  };
}

export async function disposeWhisper(loaded: LoadedWhisper) {
  await loaded.model.dispose?.();
}

/**
 * Whisper's log-mel features of a window (up to 30 s). transformers.js pads the audio to 30 s and runs its
 * STFT over all 3000 frames, ~150 ms of JavaScript however short the audio (a dictated sentence is a few
 * seconds). Frames past the audio see only zeros, and all come out as the spectrogram's floor (its
 * maximum − 8, normalised): here only the frames that touch the audio, and a few of those zero frames,
 * are computed; the rest is that floor. Same numbers, a fraction of the time.
 */
export async function logMelFeatures(processor: AnyProcessor, samples: Float32Array): Promise<Tensor> {
  const extractor = processor.feature_extractor;
  const { hop_length: hop, n_fft: fftLength, nb_max_frames: frames, feature_size: mels } = extractor.config as {
    hop_length: number;
    n_fft: number;
    nb_max_frames: number;
    feature_size: number;
  };
  // Frames whose (centred) window reaches the audio, then two frames of zeros only.
  const computed = Math.ceil((samples.length + fftLength / 2) / hop) + 2;
  // Nearly 30 s of audio: nothing to gain, transformers.js' own path.
  if (computed > frames * 0.8) return (await processor(samples)).input_features;
  // Enough zeros after the audio that the end's reflect padding reflects zeros too.
  const waveform = new Float32Array(computed * hop + fftLength);
  waveform.set(samples);
  const partial = await extractor._extract_fbank_features(waveform);
  const [, width] = partial.dims as [number, number];
  const data = partial.data as Float32Array;
  const floor = data[computed - 1]!;
  const features = new Float32Array(mels * frames).fill(floor);
  for (let mel = 0; mel < mels; mel++) features.set(data.subarray(mel * width, mel * width + computed), mel * frames);
  return new Tensor("float32", features, [1, mels, frames]);
}

function logSumExp(values: Float32Array): { max: number; lse: number } {
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) if (values[i]! > max) max = values[i]!;
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += Math.exp(values[i]! - max);
  return { max, lse: max + Math.log(sum) };
}

/**
 * The last logits processor: picks the token itself (argmax at temperature 0, else a sample from the
 * whole distribution, as OpenAI's Whisper does), records its log-probability before temperature, and
 * leaves only that token possible so that transformers.js' greedy step takes it.
 */
class TokenPicker extends LogitsProcessor {
  readonly tokens: number[] = [];
  readonly logprobs: number[] = [];
  constructor(
    private readonly temperature: number,
    private readonly isCancelled: () => boolean,
  ) {
    super();
  }

  _call(_inputIds: bigint[][], logits: Tensor) {
    if (this.isCancelled()) throw new CancelledError();
    const row = (logits as AnyModel)[0].data as Float32Array;
    const { max, lse } = logSumExp(row);
    let chosen = 0;
    if (this.temperature === 0) {
      for (let i = 1; i < row.length; i++) if (row[i]! > row[chosen]!) chosen = i;
    } else {
      let total = 0;
      const weights = new Float64Array(row.length);
      for (let i = 0; i < row.length; i++) total += weights[i] = Math.exp((row[i]! - max) / this.temperature);
      let target = Math.random() * total;
      for (chosen = 0; chosen < row.length - 1; chosen++) {
        target -= weights[chosen]!;
        if (target <= 0 && weights[chosen]! > 0) break;
      }
    }
    this.tokens.push(chosen);
    this.logprobs.push(row[chosen]! - lse);
    row.fill(-Infinity);
    row[chosen] = 0;
    return logits;
  }
}

export function compressionRatio(text: string): number {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length === 0) return 0;
  return bytes.length / zlib.deflateSync(bytes).length;
}

interface WindowDecode {
  tokens: number[];
  logprobs: number[];
  tokenTimes: number[] | null;
  temperature: number;
  avgLogprob: number;
  compressionRatio: number;
  text: string;
}

export async function transcribeWithWhisper(
  loaded: LoadedWhisper,
  request: TranscribeRequest,
  settings: EngineSettings,
  isCancelled: () => boolean,
): Promise<TranscribeResult> {
  const { model, processor, tokens } = loaded;
  const tokenizer = processor.tokenizer;
  const config = model.generation_config;
  const decodeText = (ids: number[]) => (ids.length === 0 ? "" : (tokenizer.decode(ids, { skip_special_tokens: true }) as string));
  const useTimestamps = request.timestamps ?? true;
  if (request.wordTimestamps && !loaded.supportsWordTimestamps) {
    throw Object.assign(new Error("This model cannot give word timestamps (it was exported without cross-attention outputs)."), {
      code: "invalid",
      param: "timestamp_granularities",
    });
  }

  let languageCode = request.language;
  if (languageCode && loaded.multilingual && !tokens.languageIds.has(languageCode)) {
    throw Object.assign(new Error(`The model does not know the language '${languageCode}'.`), { code: "invalid", param: "language" });
  }
  const promptTokens: number[] = request.prompt ? tokenizer.encode(` ${request.prompt.trim()}`, { add_special_tokens: false }) : [];
  const previousText: number[] = [];
  const segments: Segment[] = [];
  const words: Word[] = [];
  let decodes = 0;
  const timings = { features: 0, encoder: 0, firstStep: 0, decode: 0, tokens: 0 };
  let lapStart = performance.now();
  const lap = (phase: "features" | "encoder" | "firstStep" | "decode") => {
    const now = performance.now();
    timings[phase] += now - lapStart;
    lapStart = now;
  };
  const samples = request.samples;

  for (let windowStart = 0; windowStart < samples.length; windowStart += WINDOW_SAMPLES) {
    if (isCancelled()) throw new CancelledError();
    const window = samples.subarray(windowStart, Math.min(windowStart + WINDOW_SAMPLES, samples.length));
    const offsetSeconds = windowStart / SAMPLE_RATE;
    if (isSilent(window) || window.length < SAMPLE_RATE / 10) continue;

    lapStart = performance.now();
    const input_features = await logMelFeatures(processor, window);
    lap("features");
    if (isCancelled()) throw new CancelledError();
    const { encoder_outputs } = await model._prepare_encoder_decoder_kwargs_for_generation({
      inputs_tensor: input_features,
      model_inputs: { input_features },
      model_input_name: "input_features",
      generation_config: config,
    });

    lap("encoder");
    if (isCancelled()) throw new CancelledError();
    // One decoder step from <|startoftranscript|>: the no-speech probability, and the language.
    const first = await model.forward({
      encoder_outputs,
      decoder_input_ids: new Tensor("int64", BigInt64Array.from([BigInt(tokens.sot)]), [1, 1]),
    });
    lap("firstStep");
    const logits = first.logits.data as Float32Array;
    const vocab = first.logits.dims.at(-1) as number;
    const sotLogits = logits.subarray(logits.length - vocab);
    const { lse } = logSumExp(sotLogits);
    const noSpeechProb = Math.exp(sotLogits[tokens.noSpeech]! - lse);
    if (!languageCode) {
      if (loaded.multilingual) {
        let best = -Infinity;
        for (const [id, code] of tokens.languages) {
          if (sotLogits[id]! > best) {
            best = sotLogits[id]!;
            languageCode = code;
          }
        }
      } else {
        languageCode = "en";
      }
    }

    const prompt = [...promptTokens, ...previousText].slice(-MAX_PROMPT_TOKENS);
    const initTokens = [
      ...(prompt.length > 0 ? [tokens.startOfPrev, ...prompt] : []),
      tokens.sot,
      ...(loaded.multilingual ? [tokens.languageIds.get(languageCode!)!, request.task === "translate" ? tokens.translate : tokens.transcribe] : []),
      ...(useTimestamps ? [] : [tokens.noTimestamps]),
    ];
    const maxNewTokens = Math.max(1, Math.min(settings.maxNewTokens, MAX_TARGET_POSITIONS - initTokens.length - 1));
    const numFrames = Math.floor(window.length / HOP_LENGTH);

    const decodeOnce = async (temperature: number): Promise<WindowDecode> => {
      decodes++;
      const picker = new TokenPicker(temperature, isCancelled);
      const processors: LogitsProcessor[] = [];
      if (useTimestamps) processors.push(new WhisperTimeStampLogitsProcessor(config, initTokens));
      if (config.begin_suppress_tokens) processors.push(new SuppressTokensAtBeginLogitsProcessor(config.begin_suppress_tokens, initTokens.length));
      processors.push(picker);
      const output = await model.generate({
        input_features,
        encoder_outputs,
        decoder_input_ids: initTokens,
        logits_processor: processors,
        max_new_tokens: maxNewTokens,
        ...(settings.minNewTokens ? { min_new_tokens: Math.min(settings.minNewTokens, maxNewTokens) } : {}),
        do_sample: false,
        return_timestamps: false,
        begin_suppress_tokens: null,
        ...(request.wordTimestamps ? { return_token_timestamps: true, num_frames: numFrames } : {}),
      });
      const generated = picker.tokens;
      timings.tokens += generated.length;
      const textTokens = generated.filter((id) => id < tokens.eot);
      const withoutEot = generated.at(-1) === tokens.eot ? generated.slice(0, -1) : generated;
      const sum = picker.logprobs.reduce((a, b) => a + b, 0);
      const text = decodeText(textTokens);
      let tokenTimes: number[] | null = null;
      if (request.wordTimestamps && output.token_timestamps) {
        tokenTimes = (output.token_timestamps.tolist()[0] as number[]).slice(initTokens.length).map(Number);
      }
      return {
        tokens: withoutEot,
        logprobs: picker.logprobs,
        tokenTimes,
        temperature,
        avgLogprob: sum / (withoutEot.length + 1),
        compressionRatio: compressionRatio(text),
        text,
      };
    };

    const temperatures = request.temperature > 0 ? [request.temperature] : [0, ...settings.fallbackTemperatures];
    let decoded: WindowDecode | undefined;
    let silent = false;
    for (const temperature of temperatures) {
      decoded = await decodeOnce(temperature);
      const lowConfidence = decoded.avgLogprob < settings.logprobThreshold;
      silent = noSpeechProb > settings.noSpeechThreshold && lowConfidence;
      if (silent) break;
      if (decoded.compressionRatio <= settings.compressionRatioThreshold && !lowConfidence) break;
    }
    lap("decode");
    if (!decoded || silent) continue;

    const windowSegments = segmentsOfWindow(decoded, tokens.timestampBegin, window.length / SAMPLE_RATE, useTimestamps);
    for (const piece of windowSegments) {
      const text = decodeText(piece.textIndexes.map((i) => decoded.tokens[i]!));
      if (text.trim() === "") continue;
      const segmentWords = decoded.tokenTimes ? wordsOf(piece.textIndexes, decoded, tokenizer, offsetSeconds) : undefined;
      segments.push({
        id: segments.length,
        seek: offsetSeconds,
        start: offsetSeconds + piece.start,
        end: offsetSeconds + piece.end,
        text,
        tokens: piece.tokenIndexes.map((i) => decoded.tokens[i]!),
        temperature: decoded.temperature,
        avg_logprob: decoded.avgLogprob,
        compression_ratio: decoded.compressionRatio,
        no_speech_prob: noSpeechProb,
        ...(segmentWords ? { words: segmentWords } : {}),
      });
      if (segmentWords) words.push(...segmentWords);
    }
    // Condition the next window on this one's text, as OpenAI does, unless it was sampled hot.
    if (decoded.temperature <= 0.5) previousText.push(...decoded.tokens.filter((id) => id < tokens.eot));
    else previousText.length = 0;
  }

  return {
    languageCode: languageCode ?? request.language ?? "en",
    text: segments.map((segment) => segment.text).join("").trim(),
    segments,
    words,
    decodes,
    timings,
  };
}

interface WindowPiece {
  start: number;
  end: number;
  /** Indexes into the decode's tokens: all of the piece, and only its text tokens. */
  tokenIndexes: number[];
  textIndexes: number[];
}

/** Splits a window's tokens into segments at pairs of timestamp tokens, as OpenAI's transcribe() does. */
export function segmentsOfWindow(
  decoded: Pick<WindowDecode, "tokens">,
  timestampBegin: number,
  windowSeconds: number,
  useTimestamps: boolean,
): WindowPiece[] {
  const ids = decoded.tokens;
  const isTimestamp = (i: number) => ids[i]! >= timestampBegin;
  const time = (i: number) => (ids[i]! - timestampBegin) * TIME_PRECISION;
  const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);
  const piece = (from: number, to: number, start: number, end: number): WindowPiece => {
    const tokenIndexes = range(from, to);
    return { start, end, tokenIndexes, textIndexes: tokenIndexes.filter((i) => !isTimestamp(i)) };
  };
  if (!useTimestamps) return [piece(0, ids.length, 0, windowSeconds)];
  const boundaries: number[] = [];
  for (let i = 1; i < ids.length; i++) if (isTimestamp(i) && isTimestamp(i - 1)) boundaries.push(i);
  const pieces: WindowPiece[] = [];
  if (boundaries.length > 0) {
    let from = 0;
    for (const boundary of boundaries) {
      pieces.push(piece(from, boundary, isTimestamp(from) ? time(from) : 0, time(boundary - 1)));
      from = boundary;
    }
    if (from < ids.length) {
      const last = ids.length - 1;
      pieces.push(piece(from, ids.length, time(from), isTimestamp(last) && last > from ? time(last) : windowSeconds));
    }
  } else {
    const timestamps = range(0, ids.length).filter(isTimestamp);
    const start = timestamps.length > 0 && timestamps[0] === 0 ? time(0) : 0;
    const lastTimestamp = timestamps.at(-1);
    const end = lastTimestamp !== undefined && lastTimestamp > 0 ? time(lastTimestamp) : windowSeconds;
    pieces.push(piece(0, ids.length, start, end));
  }
  return pieces;
}

/** Words from token times (cross-attention alignment): a token starting with a space starts a word. */
function wordsOf(textIndexes: number[], decoded: WindowDecode, tokenizer: AnyProcessor, offsetSeconds: number): Word[] {
  const times = decoded.tokenTimes!;
  const result: Word[] = [];
  let current: { text: string; first: number; last: number; probabilities: number[] } | null = null;
  const flush = () => {
    if (!current || current.text.trim() === "") return;
    const end = times[current.last + 1] ?? times[current.last] ?? 0;
    result.push({
      word: current.text.trim(),
      start: offsetSeconds + (times[current.first] ?? 0),
      end: offsetSeconds + Math.max(end, times[current.first] ?? 0),
      probability: current.probabilities.reduce((a, b) => a + b, 0) / current.probabilities.length,
    });
  };
  for (const index of textIndexes) {
    const piece = tokenizer.decode([decoded.tokens[index]], { skip_special_tokens: true }) as string;
    const probability = Math.exp(decoded.logprobs[index] ?? -Infinity);
    if (!current || /^\s/.test(piece)) {
      flush();
      current = { text: piece, first: index, last: index, probabilities: [probability] };
    } else {
      current.text += piece;
      current.last = index;
      current.probabilities.push(probability);
    }
  }
  flush();
  return result;
}
