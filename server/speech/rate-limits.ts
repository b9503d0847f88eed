/**
 * Per-key limits of the speech API, in one-minute windows counted in the database, so that every app
 * node behind a load balancer counts against the same budget: requests per minute, and seconds of audio
 * per minute. A key's window begins at its first request after the previous one ended. Reported the way
 * OpenAI does, in x-ratelimit-* headers, with Retry-After on 429.
 *
 * Each take is one statement (app.take_speech_rate_limit, server/db/sql/functions/take_speech_rate_limit.sql) run with the service's
 * connection outside a transaction, like the API-key check before it: it checks, counts and answers the
 * window's usage for the headers in one round trip, and the row lock makes it exact under concurrency.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { rowsOf } from "../db/client";
import { AppError } from "../errors";
import { logger } from "../logger";

const WINDOW_MS = 60_000;
/** How often a process forgets the windows that have ended (one DELETE, not a cost of every take). */
const FORGET_EVERY_MS = 10 * WINDOW_MS;

interface Window {
  taken: boolean;
  windowStartMs: number;
  requests: number;
  audioSeconds: number;
}

export type RateLimitHeaders = Record<string, string>;

export class SpeechRateLimiter {
  private lastForgotten: number;

  constructor(
    private readonly database: () => Promise<Db>,
    private readonly requestsPerMinute: number,
    private readonly audioSecondsPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.lastForgotten = now();
  }

  /**
   * Counts one request, or throws 429 when the key has used up its requests for this minute. Answers
   * the x-ratelimit-* headers after the take; the 429 carries them too (rateLimitHeadersOf).
   */
  takeRequest(key: string): Promise<RateLimitHeaders> {
    return this.take(key, 1, 0, () => `${this.requestsPerMinute} requests per minute`);
  }

  /**
   * Counts decoded audio, or throws 429 when it would pass the key's audio seconds for this minute;
   * the first audio of a window is never refused for its length.
   */
  takeAudio(key: string, seconds: number): Promise<RateLimitHeaders> {
    return this.take(key, 0, seconds, () => `${this.audioSecondsPerMinute} seconds of audio per minute`);
  }

  /** Deletes the windows that ended more than a window ago; answers how many. */
  async forgetOldWindows(): Promise<number> {
    const before = new Date(this.now() - WINDOW_MS).toISOString();
    const db = await this.database();
    const [row] = rowsOf<{ forgotten: number }>(await db.execute(sql`select app.forget_speech_rate_windows(${before}::timestamptz) as forgotten`));
    return Number(row?.forgotten ?? 0);
  }

  private async take(key: string, requests: number, audioSeconds: number, limitName: () => string): Promise<RateLimitHeaders> {
    // No limit at all, or audio with no audio limit (a real-time session's frames): no round trip. A
    // request with only an audio limit still makes one, for the audio headers of its answer.
    if (this.requestsPerMinute === 0 && this.audioSecondsPerMinute === 0) return {};
    if (requests === 0 && this.audioSecondsPerMinute === 0) return {};
    const now = this.now();
    const window = await this.takeInDatabase(key, now, requests, audioSeconds);
    this.forgetNowAndThen(now);
    const headers = this.headers(window, now);
    if (!window.taken) {
      const retryAfterSeconds = this.resetSeconds(window, now);
      throw Object.assign(
        new AppError("rate_limited", `Rate limit reached: ${limitName()}. Retry after ${retryAfterSeconds} s.`, undefined, "rate_limit_exceeded"),
        { retryAfterSeconds, rateLimitHeaders: headers },
      );
    }
    return headers;
  }

  /**
   * One statement. A database that does not answer fails the take closed (503, Retry-After 1): the
   * key's check before it needed the database too, and a limit that lets everything through while the
   * database is away would be no limit.
   */
  private async takeInDatabase(key: string, now: number, requests: number, audioSeconds: number): Promise<Window> {
    let row: Record<string, unknown> | undefined;
    try {
      const db = await this.database();
      [row] = rowsOf<Record<string, unknown>>(
        await db.execute(sql`select taken, (extract(epoch from window_start) * 1000)::float8 as window_start_ms, requests, audio_seconds
          from app.take_speech_rate_limit(${key}, ${new Date(now).toISOString()}::timestamptz, ${`${WINDOW_MS} milliseconds`}::interval,
            ${requests}::integer, ${this.requestsPerMinute}::integer, ${audioSeconds}::float8, ${this.audioSecondsPerMinute}::integer)`),
      );
    } catch (error) {
      logger.error("speech rate limits: the database did not answer", error);
      throw Object.assign(new AppError("unavailable", "The speech rate limits cannot be checked now. Retry shortly."), { retryAfterSeconds: 1 });
    }
    if (!row) throw new Error("app.take_speech_rate_limit answered no row");
    return {
      taken: row.taken === true,
      windowStartMs: Number(row.window_start_ms),
      requests: Number(row.requests),
      audioSeconds: Number(row.audio_seconds),
    };
  }

  private forgetNowAndThen(now: number) {
    if (now - this.lastForgotten < FORGET_EVERY_MS) return;
    this.lastForgotten = now;
    this.forgetOldWindows().catch((error: unknown) => logger.error("speech rate limits: forgetting old windows failed", error));
  }

  private resetSeconds(window: Window, now: number) {
    return Math.max(1, Math.ceil((window.windowStartMs + WINDOW_MS - now) / 1000));
  }

  private headers(window: Window, now: number): RateLimitHeaders {
    const reset = `${this.resetSeconds(window, now)}s`;
    const headers: RateLimitHeaders = {};
    if (this.requestsPerMinute > 0) {
      headers["x-ratelimit-limit-requests"] = String(this.requestsPerMinute);
      headers["x-ratelimit-remaining-requests"] = String(Math.max(0, this.requestsPerMinute - window.requests));
      headers["x-ratelimit-reset-requests"] = reset;
    }
    if (this.audioSecondsPerMinute > 0) {
      headers["x-ratelimit-limit-audio-seconds"] = String(this.audioSecondsPerMinute);
      headers["x-ratelimit-remaining-audio-seconds"] = String(Math.max(0, Math.floor(this.audioSecondsPerMinute - window.audioSeconds)));
      headers["x-ratelimit-reset-audio-seconds"] = reset;
    }
    return headers;
  }
}

/** Seconds a refused take (429) or a failed check (503) asks the client to wait. */
export const retryAfterOf = (error: unknown): number | undefined => (error as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;

/** The x-ratelimit-* headers a 429 carries. */
export const rateLimitHeadersOf = (error: unknown): RateLimitHeaders => (error as { rateLimitHeaders?: RateLimitHeaders } | undefined)?.rateLimitHeaders ?? {};
