/** Messages between the engine pool (main thread) and its worker threads. */
import type { SpeechModelId } from "./config";
import type { Segment, Word } from "./formats";
import type { VadParameters } from "./vad/regions";

export interface EngineSettings {
  modelsDir: string;
  allowRemoteModels: boolean;
  /** The hub missing models are downloaded from (HF_ENDPOINT). */
  hubUrl: string;
  dtype: string;
  intraOpThreads: number;
  modelTtlSeconds: number;
  maxNewTokens: number;
  fallbackTemperatures: number[];
  logprobThreshold: number;
  compressionRatioThreshold: number;
  noSpeechThreshold: number;
  /** onnxruntime's CPU memory arena (faster allocation, higher peak memory); off by default. */
  memoryArena?: boolean;
  /** Benchmarks only: decode at least this many tokens per window (fixed cost per window). */
  minNewTokens?: number;
  /** Benchmarks only: project the logits in float as exported, not in 8 bits (onnx-int8-logits.ts), to measure one against the other. */
  floatLogits?: boolean;
}

export interface TranscribeRequest {
  model: SpeechModelId;
  /** Folder under modelsDir or hub id. */
  source: string;
  samples: Float32Array;
  task: "transcribe" | "translate";
  /** ISO code; absent: detected from the first window. */
  language?: string;
  prompt?: string;
  temperature: number;
  wordTimestamps: boolean;
  /** Decode with timestamp tokens (segments); realtime partials turn it off. */
  timestamps?: boolean;
  /** Send each decoded window's segments as a `window` message before the result (stream=true). */
  progress?: boolean;
  /** Decode only the speech the VAD finds (chunking_strategy); times stay those of the whole audio. */
  vad?: VadParameters;
  /** Set by the pool: a batch job pauses at its next step while an interactive one runs beside it. */
  priority?: "interactive" | "batch";
  /** Give each text token's log-probability (TranscribeResult.logprobs): the realtime protocol's `include`. */
  logprobs?: boolean;
}

/** One text token as OpenAI's `logprobs` entries give it: its text, its log-probability, its UTF-8 bytes. */
export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}

export interface TranscribeResult {
  languageCode: string;
  text: string;
  segments: Segment[];
  words: Word[];
  /** Each text token of the transcript with its log-probability, in order, when the request asked. */
  logprobs?: TokenLogprob[];
  /** How many decodes ran (1 per window without fallback), for tests and benchmarks. */
  decodes: number;
  /** Milliseconds spent, summed over windows: features, encoder, the language/no-speech step, decoding; and tokens decoded. */
  timings: { features: number; encoder: number; firstStep: number; decode: number; tokens: number };
}

export type ToWorker =
  | { type: "transcribe"; id: number; request: TranscribeRequest }
  | { type: "cancel"; id: number }
  | { type: "probe"; id: number; model: SpeechModelId; source: string };

export type FromWorker =
  | { type: "ready" }
  | { type: "window"; id: number; segments: Segment[] }
  | { type: "result"; id: number; result: TranscribeResult }
  | { type: "probed"; id: number; wordTimestamps: boolean }
  | { type: "error"; id: number; error: { code: string; message: string; param?: string; openaiCode?: string } }
  | { type: "log"; level: "info" | "warn" | "error"; message: string }
  | { type: "model"; source: string; state: "loaded" | "unloaded" };
