/**
 * The speech rate limits counted in the database (server/speech/rate-limits.ts,
 * server/db/sql/functions/take_speech_rate_limit.sql), on PGlite and PostgreSQL: exact when several nodes take at once, windows that roll over on the injected
 * clock, the audio rule, the x-ratelimit-* headers, and what a failed database does.
 */
import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openDatabase, rowsOf, useDatabase } from "../server/db/client";
import { AppError } from "../server/errors";
import { SpeechRateLimiter, rateLimitHeadersOf, retryAfterOf } from "../server/speech/rate-limits";
import { describeOnEachDatabase, openSecondHandle } from "./support/database";
import { connectRealtime } from "./support/realtime-client";
import { startSpeechServer, testSpeechConfig } from "./support/speech-server";

const START = Date.parse("2026-03-02T09:00:00.000Z");

/** A clock the test moves by hand. */
function testClock(at = START) {
  const clock = { at, now: () => clock.at, advance: (ms: number) => (clock.at += ms) };
  return clock;
}

const newKey = () => `test:${crypto.randomUUID()}`;

/** The refusal a take ended with (it must end with one). */
async function refusal(take: Promise<unknown>) {
  try {
    await take;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected the take to be refused");
}

describeOnEachDatabase("speech rate limits in the database", (database) => {
  const limiter = (requestsPerMinute: number, audioSecondsPerMinute: number, clock = testClock(), db = database()) =>
    new SpeechRateLimiter(async () => db.db, requestsPerMinute, audioSecondsPerMinute, clock.now);

  it("lets exactly the limit through when two nodes take 200 at once", async () => {
    const second = await openSecondHandle(database());
    try {
      const clock = testClock();
      const nodes = [limiter(50, 0, clock), limiter(50, 0, clock, second)];
      const key = newKey();
      const outcomes = await Promise.allSettled(Array.from({ length: 200 }, (_, index) => nodes[index % 2]!.takeRequest(key)));
      const passed = outcomes.filter((outcome) => outcome.status === "fulfilled");
      expect(passed).toHaveLength(50);
      for (const outcome of outcomes) {
        if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ code: "rate_limited", openaiCode: "rate_limit_exceeded" });
      }
      // Each passing take saw its own count: the remaining requests it reports are 49…0, each once.
      const remaining = passed.map((outcome) => Number((outcome as PromiseFulfilledResult<Record<string, string>>).value["x-ratelimit-remaining-requests"]));
      expect(remaining.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, index) => index));
    } finally {
      await second.close();
    }
  });

  it("reports the x-ratelimit headers after each take, and a 429 with Retry-After and the same headers past the limit", async () => {
    const clock = testClock();
    const limits = limiter(3, 10, clock);
    const key = newKey();
    expect(await limits.takeRequest(key)).toEqual({
      "x-ratelimit-limit-requests": "3",
      "x-ratelimit-remaining-requests": "2",
      "x-ratelimit-reset-requests": "60s",
      "x-ratelimit-limit-audio-seconds": "10",
      "x-ratelimit-remaining-audio-seconds": "10",
      "x-ratelimit-reset-audio-seconds": "60s",
    });
    clock.advance(15_000);
    expect(await limits.takeAudio(key, 2.5)).toMatchObject({ "x-ratelimit-remaining-requests": "2", "x-ratelimit-remaining-audio-seconds": "7", "x-ratelimit-reset-requests": "45s" });
    await limits.takeRequest(key);
    clock.advance(200);
    expect(await limits.takeRequest(key)).toMatchObject({ "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "45s" });
    const limited = await refusal(limits.takeRequest(key));
    expect(limited).toMatchObject({ code: "rate_limited", status: 429, openaiCode: "rate_limit_exceeded" });
    expect(limited.message).toContain("3 requests per minute");
    expect(retryAfterOf(limited)).toBe(45);
    expect(rateLimitHeadersOf(limited)).toMatchObject({ "x-ratelimit-remaining-requests": "0", "x-ratelimit-remaining-audio-seconds": "7" });
  });

  it("starts a new window a minute after the key's first request, not before", async () => {
    const clock = testClock();
    const limits = limiter(2, 0, clock);
    const key = newKey();
    await limits.takeRequest(key);
    clock.advance(30_000);
    await limits.takeRequest(key);
    clock.advance(29_999);
    expect(retryAfterOf(await refusal(limits.takeRequest(key)))).toBe(1);
    clock.advance(1);
    expect(await limits.takeRequest(key)).toMatchObject({ "x-ratelimit-remaining-requests": "1", "x-ratelimit-reset-requests": "60s" });
  });

  it("never refuses a window's first audio for its length; refuses audio that would pass the budget after that", async () => {
    const clock = testClock();
    const limits = limiter(0, 5, clock);
    const key = newKey();
    expect(await limits.takeAudio(key, 8)).toMatchObject({ "x-ratelimit-remaining-audio-seconds": "0" });
    const limited = await refusal(limits.takeAudio(key, 0.5));
    expect(limited.message).toContain("5 seconds of audio per minute");
    clock.advance(60_000);
    await limits.takeAudio(key, 3);
    expect(await limits.takeAudio(key, 2)).toMatchObject({ "x-ratelimit-remaining-audio-seconds": "0" });
    await refusal(limits.takeAudio(key, 0.1));
    // Requests are not audio: with no request limit they still pass, and answer the audio headers.
    const headers = await limits.takeRequest(key);
    expect(headers).not.toHaveProperty("x-ratelimit-remaining-requests");
    expect(headers).toMatchObject({ "x-ratelimit-remaining-audio-seconds": "0" });
  });

  it("counts each key on its own", async () => {
    const limits = limiter(1, 0);
    const [first, second] = [newKey(), newKey()];
    await limits.takeRequest(first);
    await refusal(limits.takeRequest(first));
    expect(await limits.takeRequest(second)).toMatchObject({ "x-ratelimit-remaining-requests": "0" });
  });

  it("forgets windows that have ended; a key forgotten starts afresh", async () => {
    const clock = testClock();
    const limits = limiter(1, 0, clock);
    const [stale, live] = [newKey(), newKey()];
    await limits.takeRequest(stale);
    clock.advance(90_000);
    await limits.takeRequest(live);
    clock.advance(40_000);
    const windowsOf = async () =>
      rowsOf<{ key: string }>(await database().db.execute(sql`select key from speech_rate_windows where key in (${stale}, ${live})`)).map((row) => row.key);
    expect((await windowsOf()).sort()).toEqual([stale, live].sort());
    expect(await limits.forgetOldWindows()).toBeGreaterThanOrEqual(1);
    expect(await windowsOf()).toEqual([live]);
    await limits.takeRequest(stale);
    await refusal(limits.takeRequest(live));
  });

  it("needs no database when both limits are off", async () => {
    const limits = new SpeechRateLimiter(() => Promise.reject(new Error("no database")), 0, 0);
    expect(await limits.takeRequest(newKey())).toEqual({});
    expect(await limits.takeAudio(newKey(), 10_000)).toEqual({});
  });

  it("is closed to the app role: neither the table nor the functions", async () => {
    const asAppRole = (statement: ReturnType<typeof sql>) =>
      database()
        .db.transaction(async (tx) => {
          await tx.execute(sql`select set_config('role', 'markbook_app', true)`);
          await tx.execute(statement);
          return "allowed";
        })
        .catch((error: Error) => String((error.cause as Error | undefined)?.message ?? error.message));
    expect(await asAppRole(sql`select * from speech_rate_windows`)).toMatch(/permission denied/);
    expect(await asAppRole(sql`select app.forget_speech_rate_windows(now())`)).toMatch(/permission denied/);
    expect(await asAppRole(sql`select * from app.take_speech_rate_limit('x', now(), interval '1 minute', 1, 0, 0, 0)`)).toMatch(/permission denied/);
  });
});

describe("speech rate limits when the database does not answer", () => {
  // A real driver and a port where nothing listens: the connection is refused.
  const openUnreachable = () => openDatabase({ kind: "postgres", url: "postgres://markbook:markbook@127.0.0.1:1/markbook", poolMax: 1 });

  it("fail closed with 503 and Retry-After", async () => {
    const unreachable = await openUnreachable();
    try {
      const limits = new SpeechRateLimiter(async () => unreachable.db, 10, 10);
      const failed = await refusal(limits.takeRequest(newKey()));
      expect(failed).toMatchObject({ code: "unavailable", status: 503 });
      expect(retryAfterOf(failed)).toBe(1);
      expect(await refusal(limits.takeAudio(newKey(), 1))).toMatchObject({ code: "unavailable" });
    } finally {
      await unreachable.close();
    }
  });

  it("answer /v1 requests and WebSocket handshakes with 503 service_unavailable and Retry-After", async () => {
    const unreachable = await openUnreachable();
    useDatabase(unreachable);
    const server = await startSpeechServer(testSpeechConfig(), { authenticate: async () => "key-of-a-test" });
    try {
      const form = new FormData();
      form.append("model", "tiny");
      form.append("file", new Blob([new Uint8Array(16)]), "speech.wav");
      const response = await fetch(`${server.baseURL}/audio/transcriptions`, { method: "POST", headers: { authorization: "Bearer mk_test" }, body: form });
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("1");
      expect((await response.json()).error).toMatchObject({ type: "server_error", code: "service_unavailable" });
      const refused = await connectRealtime(`${server.websocketURL}?api_key=mk_test`);
      expect(refused).toMatchObject({ status: 503, retryAfter: "1", body: { error: { code: "service_unavailable" } } });
    } finally {
      await server.close();
      await unreachable.close();
    }
  });
});
