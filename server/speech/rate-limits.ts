/**
 * Per-key limits of the speech API, in fixed one-minute windows held in memory (one process): requests
 * per minute, and seconds of audio per minute. Reported the way OpenAI does, in x-ratelimit-* headers,
 * with Retry-After on 429.
 */
import { AppError } from "../errors";

const WINDOW_MS = 60_000;

interface Usage {
  windowStart: number;
  requests: number;
  audioSeconds: number;
}

export class SpeechRateLimiter {
  private readonly usage = new Map<string, Usage>();

  constructor(
    private readonly requestsPerMinute: number,
    private readonly audioSecondsPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  private current(key: string): Usage {
    const now = this.now();
    let usage = this.usage.get(key);
    if (!usage || now - usage.windowStart >= WINDOW_MS) {
      usage = { windowStart: now, requests: 0, audioSeconds: 0 };
      this.usage.set(key, usage);
      if (this.usage.size > 10_000) this.forgetOldWindows(now);
    }
    return usage;
  }

  private forgetOldWindows(now: number) {
    for (const [key, usage] of this.usage) if (now - usage.windowStart >= WINDOW_MS) this.usage.delete(key);
  }

  private resetSeconds(usage: Usage) {
    return Math.max(1, Math.ceil((usage.windowStart + WINDOW_MS - this.now()) / 1000));
  }

  headers(key: string): Record<string, string> {
    const usage = this.current(key);
    const reset = `${this.resetSeconds(usage)}s`;
    const headers: Record<string, string> = {};
    if (this.requestsPerMinute > 0) {
      headers["x-ratelimit-limit-requests"] = String(this.requestsPerMinute);
      headers["x-ratelimit-remaining-requests"] = String(Math.max(0, this.requestsPerMinute - usage.requests));
      headers["x-ratelimit-reset-requests"] = reset;
    }
    if (this.audioSecondsPerMinute > 0) {
      headers["x-ratelimit-limit-audio-seconds"] = String(this.audioSecondsPerMinute);
      headers["x-ratelimit-remaining-audio-seconds"] = String(Math.max(0, Math.floor(this.audioSecondsPerMinute - usage.audioSeconds)));
      headers["x-ratelimit-reset-audio-seconds"] = reset;
    }
    return headers;
  }

  private limited(usage: Usage, what: string) {
    return Object.assign(new AppError("rate_limited", `Rate limit reached: ${what}. Retry after ${this.resetSeconds(usage)} s.`, undefined, "rate_limit_exceeded"), {
      retryAfterSeconds: this.resetSeconds(usage),
    });
  }

  /** Counts one request, or throws 429 when the key has used up its requests for this minute. */
  takeRequest(key: string) {
    const usage = this.current(key);
    if (this.requestsPerMinute > 0 && usage.requests >= this.requestsPerMinute) {
      throw this.limited(usage, `${this.requestsPerMinute} requests per minute`);
    }
    usage.requests++;
  }

  /** Counts decoded audio, or throws 429 when it would pass the key's audio seconds for this minute. */
  takeAudio(key: string, seconds: number) {
    const usage = this.current(key);
    if (this.audioSecondsPerMinute > 0 && usage.audioSeconds + seconds > this.audioSecondsPerMinute && usage.audioSeconds > 0) {
      throw this.limited(usage, `${this.audioSecondsPerMinute} seconds of audio per minute`);
    }
    usage.audioSeconds += seconds;
  }
}

export const retryAfterOf = (error: unknown): number | undefined => (error as { retryAfterSeconds?: number }).retryAfterSeconds;
