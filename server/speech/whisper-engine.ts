/**
 * Whisper decoding on transformers.js, with what transformers.js lacks done here: language detection,
 * the prompt, OpenAI's temperature fallback, segment statistics, word timestamps, long audio window by
 * window. Runs inside an engine worker thread (never on the server's event loop).
 */
import zlib from "node:zlib";
import {
  AutoProcessor,
  LogitsProcessor,
  SuppressTokensAtBeginLogitsProcessor,
  Tensor,
  WhisperForConditionalGeneration,
  WhisperTimeStampLogitsProcessor,
} from "@huggingface/transformers";
import { SAMPLE_RATE } from "./audio";
import type { EngineSettings, TranscribeRequest, TranscribeResult } from "./engine-protocol";
import type { Segment, Word } from "./formats";

const WINDOW_SECONDS = 30;
const WINDOW_SAMPLES = WINDOW_SECONDS * SAMPLE_RATE;
const TIME_PRECISION = 0.02;
const HOP_LENGTH = 160;
/** Whisper's decoder has 448 positions; OpenAI keeps at most 223 prompt tokens. */
const MAX_TARGET_POSITIONS = 448;
const MAX_PROMPT_TOKENS = 223;
/** Windows quieter than this (peak amplitude) are not decoded: Whisper would only hallucinate. */
const SILENCE_PEAK = 1e-3;

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

export async function loadWhisper(
  source: string,
  settings: EngineSettings,
  onProgress?: (progress: { status: string; file?: string; progress?: number }) => void,
): Promise<LoadedWhisper> {
  const options = {
    dtype: settings.dtype as "q8",
    session_options: {
      intraOpNumThreads: settings.intraOpThreads,
      interOpNumThreads: 1,
      // The q8 export keeps its weights quantized behind DequantizeLinear nodes, which onnxruntime
      // leaves in the graph: every encoder pass and every decoder step dequantized the weights again
      // (each step re-created the 80 MB tied embedding). With disable_quant_qdq, constant folding
      // dequantizes them once at load (about 120 MB more resident for tiny): decoding is ~1.5× faster
      // and the peak lower than before, as the per-step copies are gone. The CPU arena stays: the
      // encoder's attention temporaries (tens of MB each) are reused rather than mapped afresh, 1.7×
      // faster for no measurable peak. Pre-packing would keep a second copy of every weight for no
      // measurable speed here (docs/benchmarks.md).
      enableCpuMemArena: settings.memoryArena ?? true,
      enableMemPattern: false,
      extra: { session: { disable_quant_qdq: "1", disable_prepacking: "1" } },
    },
    progress_callback: onProgress as never,
  };
  const [model, processor] = await Promise.all([
    WhisperForConditionalGeneration.from_pretrained(source, options),
    AutoProcessor.from_pretrained(source),
  ]);
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
    let peak = 0;
    for (let i = 0; i < window.length; i++) peak = Math.max(peak, Math.abs(window[i]!));
    if (peak < SILENCE_PEAK || window.length < SAMPLE_RATE / 10) continue;

    lapStart = performance.now();
    const { input_features } = await processor(window);
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
