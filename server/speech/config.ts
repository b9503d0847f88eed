import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError, type Env } from "../env";

export const SPEECH_MODEL_IDS = ["tiny", "base", "small", "medium", "large"] as const;
export type SpeechModelId = (typeof SPEECH_MODEL_IDS)[number];
/** OpenAI's model name; clients written for OpenAI send it, and it stands for the configured default. */
export const OPENAI_DEFAULT_MODEL_ALIAS = "whisper-1";

/** Everything the speech service needs, resolved once from the environment (tests build their own). */
export interface SpeechConfig {
  modelsDir: string;
  /** Model id → transformers.js model: a folder under modelsDir or a hub id. */
  modelSources: Record<SpeechModelId, string>;
  defaultModel: SpeechModelId;
  allowRemoteModels: boolean;
  /** The hub models are downloaded from (no trailing slash). */
  hubUrl: string;
  dtype: Env["SPEECH_DTYPE"];
  modelTtlSeconds: number;
  workers: number;
  /** onnxruntime intra-op threads per worker (explicit, never left to onnxruntime's guess). */
  intraOpThreads: number;
  memoryArena: boolean;
  queueMax: number;
  queueMaxAudioBytes: number;
  maxAudioBytes: number;
  maxAudioSeconds: number;
  ffmpegPath: string;
  maxNewTokens: number;
  fallbackTemperatures: number[];
  logprobThreshold: number;
  compressionRatioThreshold: number;
  noSpeechThreshold: number;
  rateLimitRequestsPerMinute: number;
  rateLimitAudioSecondsPerMinute: number;
  wsMaxSessions: number;
  wsMaxSessionSeconds: number;
}

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** MODELS_DIR, else ../shared/models beside the repository when it exists, else DATA_DIR/models. */
function resolveModelsDir(configured: string | undefined, dataDir: string): string {
  if (configured) return path.resolve(configured);
  const shared = path.resolve(repositoryRoot, "..", "shared", "models");
  return fs.existsSync(shared) ? shared : path.join(dataDir, "models");
}

/** The static ffmpeg shipped inside @ffmpeg-installer/<platform> (so `npm install` brings it). */
export function bundledFfmpegPath(): string {
  try {
    return (createRequire(import.meta.url)("@ffmpeg-installer/ffmpeg") as { path: string }).path;
  } catch {
    return "ffmpeg"; // a platform the package has no binary for: whatever is on PATH (health says if none)
  }
}

/** "0.2,0.4,…" → [0.2, 0.4, …]; "off" (or "none") turns the fallback off. */
function parseTemperatureList(value: string): number[] {
  if (/^\s*(off|none)\s*$/i.test(value)) return [];
  return value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => {
      const temperature = Number(item);
      if (!Number.isFinite(temperature) || temperature <= 0 || temperature > 1) {
        throw new ConfigError(`Invalid configuration:\n  SPEECH_FALLBACK_TEMPERATURES: ${item} is not a temperature in (0, 1] (or use "off")`);
      }
      return temperature;
    });
}

export function speechConfigFromEnv(config: Env): SpeechConfig {
  const workers = config.SPEECH_WORKERS;
  return {
    modelsDir: resolveModelsDir(config.MODELS_DIR, config.dataDir),
    modelSources: {
      tiny: config.SPEECH_MODEL_TINY,
      base: config.SPEECH_MODEL_BASE,
      small: config.SPEECH_MODEL_SMALL,
      medium: config.SPEECH_MODEL_MEDIUM,
      large: config.SPEECH_MODEL_LARGE,
    },
    defaultModel: config.SPEECH_DEFAULT_MODEL,
    allowRemoteModels: config.ALLOW_REMOTE_MODELS,
    hubUrl: config.HF_ENDPOINT.replace(/\/+$/, ""),
    dtype: config.SPEECH_DTYPE,
    modelTtlSeconds: config.MODEL_TTL_SECONDS,
    workers,
    intraOpThreads: config.SPEECH_THREADS || Math.max(1, Math.floor(os.availableParallelism() / workers)),
    memoryArena: config.SPEECH_MEMORY_ARENA,
    queueMax: config.SPEECH_QUEUE_MAX,
    queueMaxAudioBytes: config.SPEECH_QUEUE_MAX_AUDIO_MB * 1024 * 1024,
    maxAudioBytes: config.MAX_AUDIO_BYTES,
    maxAudioSeconds: config.MAX_AUDIO_SECONDS,
    ffmpegPath: config.FFMPEG_PATH ?? bundledFfmpegPath(),
    maxNewTokens: config.SPEECH_MAX_NEW_TOKENS,
    fallbackTemperatures: parseTemperatureList(config.SPEECH_FALLBACK_TEMPERATURES),
    logprobThreshold: config.SPEECH_LOGPROB_THRESHOLD,
    compressionRatioThreshold: config.SPEECH_COMPRESSION_RATIO_THRESHOLD,
    noSpeechThreshold: config.SPEECH_NO_SPEECH_THRESHOLD,
    rateLimitRequestsPerMinute: config.SPEECH_RATE_LIMIT_RPM,
    rateLimitAudioSecondsPerMinute: config.SPEECH_RATE_LIMIT_AUDIO_SECONDS,
    wsMaxSessions: config.SPEECH_WS_MAX_SESSIONS,
    wsMaxSessionSeconds: config.SPEECH_WS_MAX_SESSION_SECONDS,
  };
}
