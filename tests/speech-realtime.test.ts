/** The real-time WebSocket end to end: a fixture streamed at real-time pace, with the `ws` client. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type WebSocket from "ws";
import type { Database } from "../server/db/client";
import { openDatabase, useDatabase } from "../server/db/client";
import { asService } from "../server/db/rls";
import { createApiKey } from "../server/identity/api-keys";
import { speechTimeout } from "./support/busy-machine";
import { createTestDatabase } from "./support/database";
import { readAudioFixture } from "./support/speech-audio";
import { stabilisePartial } from "../server/speech/realtime/stabilise";
import { connectRealtime } from "./support/realtime-client";
import { type RunningSpeechServer, startSpeechServer, testModelAvailable, testSpeechConfig } from "./support/speech-server";

/** PCM s16le of the speech fixture (16 kHz mono). */
function speechPcm(): Buffer {
  const wav = readAudioFixture("speech.wav");
  const data = wav.indexOf("data", 12, "latin1");
  return wav.subarray(data + 8, data + 8 + wav.readUInt32LE(data + 4));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends audio in 100 ms frames at real-time pace. */
async function stream(ws: WebSocket, pcm: Buffer, bytesPerSecond = 32_000) {
  const frame = bytesPerSecond / 10;
  const started = Date.now();
  for (let offset = 0, index = 0; offset < pcm.length; offset += frame, index++) {
    ws.send(pcm.subarray(offset, offset + frame));
    const due = started + (index + 1) * 100;
    await sleep(Math.max(0, due - Date.now()));
  }
}

describe("partial stabilisation (agreement between consecutive passes)", () => {
  const words = (text: string) => text.split(" ");
  it("makes the common prefix of two passes stable, and never takes stable words back", () => {
    const first = stabilisePartial([], null, words("the copy is"));
    expect(first).toEqual({ stable: [], unstable: words("the copy is") });
    const second = stabilisePartial(first.stable, words("the copy is"), words("the copy was very"));
    expect(second).toEqual({ stable: words("the copy"), unstable: words("was very") });
    // The model changes its mind about an early word: the stable words stay.
    const third = stabilisePartial(second.stable, words("the copy was very"), words("a copy was very clear"));
    expect(third).toEqual({ stable: words("the copy"), unstable: words("was very clear") });
    const fourth = stabilisePartial(third.stable, words("a copy was very clear"), words("a copy was very clear indeed"));
    expect(fourth.stable).toEqual(words("the copy was very clear"));
    expect(fourth.unstable).toEqual(words("indeed"));
  });
});

describe.skipIf(!testModelAvailable)("real-time transcription over /v1/websocket", () => {
  let database: Database;
  let server: RunningSpeechServer;
  let key: string;

  beforeAll(async () => {
    database = await createTestDatabase("pglite");
    useDatabase(database);
    key = (await asService(database.db, (tx) => createApiKey(tx, { name: "realtime" }))).key;
    server = await startSpeechServer(testSpeechConfig({ SPEECH_WS_MAX_SESSIONS: "1" }));
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
  });

  it("refuses a bad key with 401 and bad parameters with 400, before the upgrade, with the Error body", async () => {
    const noKey = await connectRealtime(server.websocketURL);
    expect(noKey).toMatchObject({ status: 401, body: { error: { type: "authentication_error", code: "invalid_api_key" } } });
    const wrongKey = await connectRealtime(`${server.websocketURL}?api_key=mk_wrong`);
    expect(wrongKey).toMatchObject({ status: 401 });
    const wrongHeader = await connectRealtime(server.websocketURL, { authorization: "Bearer mk_wrong" });
    expect(wrongHeader).toMatchObject({ status: 401 });
    for (const [query, param] of [
      ["language=english", "language"],
      ["task=summarise", "task"],
      ["model=huge", "model"],
      ["encoding=mp3", "encoding"],
      ["sample_rate=44100", "sample_rate"],
    ]) {
      expect(await connectRealtime(`${server.websocketURL}?api_key=${key}&${query}`)).toMatchObject({
        status: 400,
        body: { error: { type: "invalid_request_error", code: "invalid_parameters", param } },
      });
    }
  });

  it("streams speech at real-time pace: ready, detected language, stabilised partials, finals with words, closing message", async () => {
    const session = await connectRealtime(`${server.websocketURL}?api_key=${key}&model=tiny&temperature=1`);
    if (!("ws" in session)) throw new Error(`refused: ${JSON.stringify(session)}`);
    const { ws, messages, closed } = session;
    const pcm = speechPcm();
    // A second session is over the limit of one: refused before the upgrade, with 429.
    expect(await connectRealtime(`${server.websocketURL}?api_key=${key}`)).toMatchObject({ status: 429, body: { error: { code: "rate_limit_exceeded" } } });

    // `ready` comes once the model is loaded.
    while (!messages.some((message) => message.type === "ready")) await sleep(20);
    ws.send(JSON.stringify({ type: "pause" })); // unknown control: an error message, the session goes on
    // Two copies back to back (one long utterance: time for partial passes even on a busy machine),
    // a one-second pause, one more copy.
    await stream(ws, Buffer.concat([pcm, pcm, Buffer.alloc(32_000), pcm]));
    ws.send(JSON.stringify({ type: "end" }));
    expect(await closed).toBe(1000);

    const types = messages.map((message) => message.type);
    expect(types[0]).toBe("ready");
    expect(messages[0]).toMatchObject({ model: "tiny", task: "transcribe", encoding: "pcm_s16le", sample_rate: 16000 });
    expect(types.at(-1)).toBe("closed");
    expect(messages.at(-1)).toMatchObject({ reason: "end" });
    expect(Number(messages.at(-1)?.audio_seconds)).toBeCloseTo((pcm.length * 3 + 32_000) / 32_000, 0);
    expect(messages.find((message) => message.type === "error")).toMatchObject({ error: { code: "invalid_parameters", param: "type" } });
    expect(messages.filter((message) => message.type === "language")).toHaveLength(1);

    const partials = messages.filter((message) => message.type === "partial") as unknown as { segment_id: number; text: string; stable: string }[];
    expect(partials.length).toBeGreaterThan(0);
    for (const partial of partials) expect(partial.text.startsWith(partial.stable)).toBe(true);

    const finals = messages.filter((message) => message.type === "final").map((message) => message.segment) as {
      id: number;
      start: number;
      end: number;
      text: string;
      words: { word: string; start: number; end: number }[];
    }[];
    // The one-second pause is an endpoint: at least the two copies of the clip are separate segments.
    expect(finals.length).toBeGreaterThanOrEqual(2);
    for (const [index, final] of finals.entries()) {
      expect(final.end).toBeGreaterThan(final.start);
      expect(Array.isArray(final.words)).toBe(true);
      if (index > 0) expect(final.start).toBeGreaterThanOrEqual(finals[index - 1]!.end);
    }
    expect(finals.at(-1)!.start).toBeGreaterThan((2 * pcm.length) / 32_000);
    // Every partial belongs to a segment that got its final.
    const finalIds = new Set(finals.map((final) => final.id));
    for (const partial of partials) expect(finalIds.has(partial.segment_id)).toBe(true);
  }, 120_000); // ~15 s of audio at real-time pace, then its finals: generous on a busy machine

  it("refuses a model that is not installed (downloads off) before the upgrade: 400 model_not_found", async () => {
    const refusal = await connectRealtime(`${server.websocketURL}?api_key=${key}&model=small`);
    expect(refusal).toMatchObject({ status: 400, body: { error: { type: "invalid_request_error", code: "model_not_found", param: "model" } } });
  });

  it("takes float32 frames when asked (encoding=pcm_f32le)", { timeout: speechTimeout({ decodes: 3 }) }, async () => {
    while (server.realtimeSessions() > 0) await sleep(20); // the limit is one session
    const session = await connectRealtime(`${server.websocketURL}?encoding=pcm_f32le&language=en`, { authorization: `Bearer ${key}` });
    if (!("ws" in session)) throw new Error(`refused: ${JSON.stringify(session)}`);
    const s16 = speechPcm();
    const f32 = Buffer.alloc(s16.length * 2);
    for (let i = 0; i < s16.length / 2; i++) f32.writeFloatLE(s16.readInt16LE(i * 2) / 32768, i * 4);
    // Faster than real time is fine for a short clip; end at once: the flush makes the final.
    session.ws.send(f32);
    session.ws.send(JSON.stringify({ type: "end" }));
    expect(await session.closed).toBe(1000);
    const final = session.messages.find((message) => message.type === "final") as { segment: { start: number; end: number } } | undefined;
    expect(final).toBeDefined();
    expect(final!.segment.end - final!.segment.start).toBeGreaterThan(3);
    expect(session.messages.at(-1)).toMatchObject({ type: "closed", reason: "end" });
  });

  it("gives the engine the session's prompt (the query's, as the batch API's field); refuses one over the limit", { timeout: speechTimeout({ decodes: 2 }) }, async () => {
    while (server.realtimeSessions() > 0) await sleep(20); // the limit is one session
    expect(await connectRealtime(`${server.websocketURL}?api_key=${key}&prompt=${"x".repeat(4001)}`)).toMatchObject({
      status: 400,
      body: { error: { code: "invalid_parameters", param: "prompt" } },
    });
    // What the engine is asked: the real pool still does the work.
    const pool = server.service.pool;
    const original = pool.transcribe.bind(pool);
    const prompts: (string | undefined)[] = [];
    pool.transcribe = (request, signal) => {
      prompts.push(request.prompt);
      return original(request, signal);
    };
    try {
      const prompt = "Siobhán Ní Bhriain, photosynthesis, chlorophyll";
      const session = await connectRealtime(`${server.websocketURL}?api_key=${key}&language=en&prompt=${encodeURIComponent(prompt)}`);
      if (!("ws" in session)) throw new Error(`refused: ${JSON.stringify(session)}`);
      session.ws.send(speechPcm());
      session.ws.send(JSON.stringify({ type: "end" }));
      expect(await session.closed).toBe(1000);
      expect(session.messages.some((message) => message.type === "final")).toBe(true);
      expect(prompts.length).toBeGreaterThan(0);
      expect(prompts.every((given) => given === prompt)).toBe(true);
    } finally {
      pool.transcribe = original;
    }
  });
});

describe.skipIf(!testModelAvailable)("per-key limits on /v1/websocket", () => {
  let database: Database;
  let server: RunningSpeechServer;
  let key: string;
  let otherKey: string;
  let handshakeKey: string;

  beforeAll(async () => {
    database = await createTestDatabase("pglite");
    useDatabase(database);
    [key, otherKey, handshakeKey] = await asService(database.db, async (tx) => [
      (await createApiKey(tx, { name: "limited" })).key,
      (await createApiKey(tx, { name: "neighbour" })).key,
      (await createApiKey(tx, { name: "handshakes" })).key,
    ]);
    server = await startSpeechServer(testSpeechConfig({ SPEECH_RATE_LIMIT_RPM: "2", SPEECH_RATE_LIMIT_AUDIO_SECONDS: "2" }));
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
  });

  // This server's first session loads the model; then two short sessions' finals.
  it("counts a session's audio against its key's seconds per minute: past them, an error, the finals so far, closed", { timeout: speechTimeout({ loads: 1, decodes: 3 }) }, async () => {
    const session = await connectRealtime(`${server.websocketURL}?api_key=${key}&language=en`);
    if (!("ws" in session)) throw new Error(`refused: ${JSON.stringify(session)}`);
    session.ws.send(speechPcm().subarray(0, 32_000 * 3)); // 3 s, one more than the key may send this minute
    expect(await session.closed).toBe(1000);
    const error = session.messages.find((message) => message.type === "error") as { error: { code: string; message: string } } | undefined;
    expect(error?.error).toMatchObject({ code: "rate_limit_exceeded", message: expect.stringContaining("2 seconds of audio per minute") });
    expect(session.messages.at(-1)).toMatchObject({ type: "closed", reason: "rate_limited", audio_seconds: expect.closeTo(2, 1) });
    expect(session.messages.some((message) => message.type === "final")).toBe(true);

    // The same key's next session is refused its first frame; another key is not limited by it.
    const again = await connectRealtime(`${server.websocketURL}?api_key=${key}&language=en`);
    if (!("ws" in again)) throw new Error(`refused: ${JSON.stringify(again)}`);
    again.ws.send(speechPcm().subarray(0, 3200));
    expect(await again.closed).toBe(1000);
    expect(again.messages.at(-1)).toMatchObject({ type: "closed", reason: "rate_limited", audio_seconds: 0 });
    const neighbour = await connectRealtime(`${server.websocketURL}?api_key=${otherKey}&language=en`);
    if (!("ws" in neighbour)) throw new Error(`refused: ${JSON.stringify(neighbour)}`);
    neighbour.ws.send(speechPcm().subarray(0, 32_000));
    neighbour.ws.send(JSON.stringify({ type: "end" }));
    expect(await neighbour.closed).toBe(1000);
    expect(neighbour.messages.at(-1)).toMatchObject({ type: "closed", reason: "end" });
  });

  it("counts each session as a request of its key: past the requests per minute, 429 with Retry-After at the handshake", async () => {
    // Two sessions opened and ended at once use up the key's 2 requests per minute. A key of its own:
    // the test above may take longer than that minute on a busy machine.
    for (let session = 0; session < 2; session++) {
      const opened = await connectRealtime(`${server.websocketURL}?api_key=${handshakeKey}&language=en`);
      if (!("ws" in opened)) throw new Error(`refused: ${JSON.stringify(opened)}`);
      opened.ws.send(JSON.stringify({ type: "end" }));
      expect(await opened.closed).toBe(1000);
    }
    const refused = await connectRealtime(`${server.websocketURL}?api_key=${handshakeKey}`);
    expect(refused).toMatchObject({ status: 429, body: { error: { type: "rate_limit_error", code: "rate_limit_exceeded" } } });
    expect(Number((refused as { retryAfter?: string }).retryAfter)).toBeGreaterThan(0);
  });

  it("ends a session with service_unavailable when its audio cannot be counted (the database is away)", async () => {
    // The neighbour key opened one session above: this is its second of two this minute.
    const session = await connectRealtime(`${server.websocketURL}?api_key=${otherKey}&language=en`);
    if (!("ws" in session)) throw new Error(`refused: ${JSON.stringify(session)}`);
    // A real driver and a port where nothing listens: the connection is refused.
    const unreachable = await openDatabase({ kind: "postgres", url: "postgres://markbook:markbook@127.0.0.1:1/markbook", poolMax: 1 });
    useDatabase(unreachable);
    try {
      session.ws.send(speechPcm().subarray(0, 16_000));
      expect(await session.closed).toBe(1000);
      expect(session.messages.find((message) => message.type === "error")).toMatchObject({ error: { type: "server_error", code: "service_unavailable" } });
      expect(session.messages.at(-1)).toMatchObject({ type: "closed", reason: "unavailable", audio_seconds: 0 });
    } finally {
      useDatabase(database);
      await unreachable.close();
    }
  });
});
