/** The speech service of one process: configuration, engine pool, limits; created lazily from env. */
import { createRequire } from "node:module";
import { env } from "../env";
import { getDatabase } from "../db/client";
import { asService } from "../db/rls";
import { verifyApiKey } from "../identity/api-keys";
import { probeFfmpeg } from "./audio";
import { DICTATION_KEY_PREFIX, verifyDictationKey } from "./dictation-keys";
import { type SpeechConfig, speechConfigFromEnv } from "./config";
import { EnginePool } from "./engine-pool";
import { type ModelHealthCheck, createModelHealthCheck } from "./model-health";
import type { EngineSettings } from "./engine-protocol";
import { SpeechRateLimiter } from "./rate-limits";

const FFMPEG_PROBE_TTL_MS = 60_000;
export const SPEECH_SERVICE_NAME = "markbook-speech";
/** Markbook's own version (package.json), as the health response's `version`. */
export const SPEECH_SERVICE_VERSION = (createRequire(import.meta.url)("../../package.json") as { version: string }).version;

/** A live real-time session (/v1/websocket or /v1/realtime) as the service sees it: counted (limit, health), ended at shutdown. */
interface RealtimeSessionHandle {
  shutdown(): void;
}

export interface SpeechService {
  config: SpeechConfig;
  /** Real-time sessions open now; only realtime/upgrade.ts adds and removes them. */
  realtimeSessions: Set<RealtimeSessionHandle>;
  pool: EnginePool;
  rateLimiter: SpeechRateLimiter;
  startedAt: number;
  /** The API key's id, or null when the key is unknown or revoked. */
  authenticate(key: string): Promise<string | null>;
  ffmpegHealth(): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Which models can be loaded now (files on disk, or the hub answers). */
  modelHealth: ModelHealthCheck;
  close(): Promise<void>;
}

export function engineSettings(config: SpeechConfig): EngineSettings {
  return {
    modelsDir: config.modelsDir,
    allowRemoteModels: config.allowRemoteModels,
    hubUrl: config.hubUrl,
    dtype: config.dtype,
    intraOpThreads: config.intraOpThreads,
    memoryArena: config.memoryArena,
    modelTtlSeconds: config.modelTtlSeconds,
    maxNewTokens: config.maxNewTokens,
    fallbackTemperatures: config.fallbackTemperatures,
    logprobThreshold: config.logprobThreshold,
    compressionRatioThreshold: config.compressionRatioThreshold,
    noSpeechThreshold: config.noSpeechThreshold,
  };
}

/**
 * A dictation key (short-lived, signed, for the signed-in UI; its user must still be active) or an API
 * key, both checked in the database at every use, with the service's rights: the caller is a key, not a
 * signed-in user. The result names the rate-limit
 * bucket: the API key's id, or the user of a dictation key.
 */
async function authenticateWithDatabase(key: string): Promise<string | null> {
  const database = await getDatabase();
  if (key.startsWith(DICTATION_KEY_PREFIX)) {
    const dictation = await asService(database.db, (tx) => verifyDictationKey(tx, key));
    return dictation ? `user:${dictation.userId}` : null;
  }
  const row = await asService(database.db, (tx) => verifyApiKey(tx, key));
  return row?.id ?? null;
}

/** The process database, where the rate limits of every node are counted. */
const processDb = async () => (await getDatabase()).db;

export function createSpeechService(
  config: SpeechConfig,
  options: { authenticate?: SpeechService["authenticate"]; engine?: Partial<EngineSettings> } = {},
): SpeechService {
  let ffmpegProbe: { at: number; result: Promise<{ ok: true } | { ok: false; reason: string }> } | null = null;
  const pool = new EnginePool({ ...engineSettings(config), ...options.engine }, config.workers, config.queueMax, config.queueMaxAudioBytes);
  return {
    config,
    realtimeSessions: new Set(),
    pool,
    rateLimiter: new SpeechRateLimiter(processDb, config.rateLimitRequestsPerMinute, config.rateLimitAudioSecondsPerMinute),
    startedAt: Date.now(),
    authenticate: options.authenticate ?? authenticateWithDatabase,
    ffmpegHealth() {
      if (!ffmpegProbe || Date.now() - ffmpegProbe.at > FFMPEG_PROBE_TTL_MS) {
        ffmpegProbe = { at: Date.now(), result: probeFfmpeg(config.ffmpegPath) };
      }
      return ffmpegProbe.result;
    },
    modelHealth: createModelHealthCheck(config),
    close: () => pool.close(),
  };
}

const slot = globalThis as typeof globalThis & { __markbookSpeech?: SpeechService };

/** The process's speech service (configuration from the environment), created on first use. */
export function getSpeechService(): SpeechService {
  slot.__markbookSpeech ??= createSpeechService(speechConfigFromEnv(env()));
  return slot.__markbookSpeech;
}

/** Makes `service` the process's speech service (tests: the web app's procedures then read its state). */
export function useSpeechService(service: SpeechService | undefined): void {
  slot.__markbookSpeech = service;
}

/** Stops the engine workers, if they were ever started (server shutdown). */
export async function closeSpeechService(): Promise<void> {
  const service = slot.__markbookSpeech;
  slot.__markbookSpeech = undefined;
  await service?.close();
}
