/**
 * stream=true on /v1/audio/* (issue 20): OpenAI's transcript events over server-sent events, read with
 * the real `openai` client from a test server running the real engine on whisper-tiny-random (random
 * weights: never words). The model decodes greedily where two answers must be equal (deterministic),
 * and at temperature 1 where several 30 s windows must each give text.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI, { toFile } from "openai";
import type { TranscriptionStreamEvent } from "openai/resources/audio/transcriptions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../server/db/client";
import { useDatabase } from "../server/db/client";
import { asService } from "../server/db/rls";
import { createApiKey } from "../server/identity/api-keys";
import type { Segment } from "../server/speech/formats";
import { TranscriptEventStream } from "../server/speech/transcript-events";
import { speechTimeout } from "./support/busy-machine";
import { createTestDatabase } from "./support/database";
import { openaiFailure as failure } from "./support/openai-failure";
import { readAudioFixture, repeatedSpeechWav, wavBytes } from "./support/speech-audio";
import { type RunningSpeechServer, startSpeechServer, testModelAvailable, testModelsDir, testSpeechConfig } from "./support/speech-server";

if (!testModelAvailable) console.warn(`\nspeech-stream tests skipped: no whisper-tiny-random in ${testModelsDir} (set MODELS_DIR)\n`);

const speechFile = () => toFile(readAudioFixture("speech.wav"), "speech.wav", { type: "audio/wav" });
const longFile = (seconds: number) => toFile(repeatedSpeechWav(seconds), "long.wav", { type: "audio/wav" });
const silentFile = () => toFile(wavBytes(new Float32Array(8_000)), "silence.wav", { type: "audio/wav" });

/** Raw multipart POST, for what the openai client would not send (bad stream values, a streamed translation). */
function post(server: RunningSpeechServer, key: string, path: string, fields: Record<string, string>, file: Buffer = readAudioFixture("speech.wav")) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("file", new Blob([new Uint8Array(file)]), "speech.wav");
  return fetch(`${server.baseURL}${path}`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
}

/** The events of a whole server-sent event stream (its data lines; comments are skipped, as readers do). */
const eventsOf = (body: string) =>
  body
    .split("\n\n")
    .filter((block) => block.startsWith("data: "))
    .map((block) => JSON.parse(block.slice("data: ".length)) as { type: string; delta?: string; text?: string });

describe.skipIf(!testModelAvailable)("stream=true with the openai client", () => {
  let database: Database;
  let server: RunningSpeechServer;
  let key: string;
  let client: OpenAI;

  beforeAll(async () => {
    database = await createTestDatabase("pglite");
    useDatabase(database);
    key = (await asService(database.db, (tx) => createApiKey(tx, { name: "stream tests" }))).key;
    server = await startSpeechServer(testSpeechConfig({ SPEECH_RATE_LIMIT_RPM: "0", SPEECH_RATE_LIMIT_AUDIO_SECONDS: "0" }));
    client = new OpenAI({ apiKey: key, baseURL: server.baseURL, maxRetries: 0, timeout: 120_000 });
    // The model loads on the first request: once, here.
    await client.audio.transcriptions.create({ file: await silentFile(), model: "tiny" });
    await client.audio.transcriptions.create({ file: await speechFile(), model: "tiny" });
  }, speechTimeout({ loads: 1, decodes: 1 }));
  afterAll(async () => {
    await server?.close();
    await database?.close();
  });

  it("sends a delta as each 30 s window is decoded, before the last window is, then done with the deltas' text", { timeout: speechTimeout({ decodes: 3 }) }, async () => {
    const { pool } = server.service;
    const before = pool.stats.windowsReported;
    const stream = await client.audio.transcriptions.create({ file: await longFile(65), model: "tiny", temperature: 1, stream: true });
    // For each event: how many of this job's windows the engine had reported when the client read it.
    const seen: { event: TranscriptionStreamEvent; windows: number }[] = [];
    for await (const event of stream) seen.push({ event, windows: pool.stats.windowsReported - before });

    const deltas = seen.filter(({ event }) => event.type === "transcript.text.delta");
    const done = seen.at(-1)!;
    expect(done.event.type).toBe("transcript.text.done");
    expect(seen.filter(({ event }) => event.type === "transcript.text.done")).toHaveLength(1);
    // 65 s is three windows (0, 30, 60), each decoded into text at temperature 1.
    expect(done.windows).toBe(3);
    // Incremental: the first delta was read before the engine had reported its last window, and the
    // deltas came with more than one window.
    expect(deltas[0]!.windows).toBeLessThan(3);
    expect(new Set(deltas.map(({ windows }) => windows)).size).toBeGreaterThan(1);
    const text = deltas.map(({ event }) => (event as { delta: string }).delta).join("");
    expect(text.length).toBeGreaterThan(0);
    expect((done.event as { text: string }).text).toBe(text);
    // OpenAI's shapes, nothing more: no logprobs (no include[]) and no token usage (nothing is billed).
    for (const { event } of deltas) expect(Object.keys(event).sort()).toEqual(["delta", "type"]);
    expect(Object.keys(done.event).sort()).toEqual(["text", "type"]);
  });

  it("streams the same text as the json answer for the same audio and settings, a delta per segment", { timeout: speechTimeout({ decodes: 9 }) }, async () => {
    // Greedy decoding is deterministic (with language en this audio gives text with the random model).
    const settings = { model: "tiny", language: "en", temperature: 0 } as const;
    const json = await client.audio.transcriptions.create({ file: await longFile(65), ...settings });
    const verbose = await client.audio.transcriptions.create({ file: await longFile(65), ...settings, response_format: "verbose_json" });
    const stream = await client.audio.transcriptions.create({ file: await longFile(65), ...settings, stream: true });
    const events: TranscriptionStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const deltas = events.flatMap((event) => (event.type === "transcript.text.delta" ? [event.delta] : []));
    // Every segment with text is one delta (a blank one adds nothing to send).
    const segmentsWithText = verbose.segments!.filter((segment) => segment.text.trim() !== "").length;
    expect(segmentsWithText).toBeGreaterThan(0);
    expect(deltas).toHaveLength(segmentsWithText);
    expect(deltas.join("")).toBe(json.text);
    expect(events.at(-1)).toEqual({ type: "transcript.text.done", text: json.text });
  });

  it("streams response_format=text and translations too; silent audio is done at once with empty text", { timeout: speechTimeout({ decodes: 4 }) }, async () => {
    const text = await client.audio.transcriptions.create({ file: await speechFile(), model: "tiny", response_format: "text" });
    const streamedText = await post(server, key, "/audio/transcriptions", { model: "tiny", response_format: "text", stream: "true" });
    expect(streamedText.status).toBe(200);
    expect(streamedText.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(eventsOf(await streamedText.text()).at(-1)).toEqual({ type: "transcript.text.done", text: text.replace(/\n$/, "") });

    // The openai client has no stream option for translations; Markbook streams them all the same.
    const translation = await client.audio.translations.create({ file: await speechFile(), model: "tiny" });
    const streamedTranslation = await post(server, key, "/audio/translations", { model: "tiny", stream: "true" });
    expect(streamedTranslation.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const events = eventsOf(await streamedTranslation.text());
    expect(events.at(-1)).toEqual({ type: "transcript.text.done", text: translation.text });
    expect(events.flatMap((event) => (event.delta === undefined ? [] : [event.delta])).join("")).toBe(translation.text);

    const silent = await client.audio.transcriptions.create({ file: await silentFile(), model: "tiny", stream: true });
    const silentEvents: TranscriptionStreamEvent[] = [];
    for await (const event of silent) silentEvents.push(event);
    expect(silentEvents).toEqual([{ type: "transcript.text.done", text: "" }]);
  });

  it.each([["yes"], ["1"], ["TRUE"], ["True"], [" true"], ["null"], ["{}"]])("400 invalid_parameters naming stream for stream=%j", async (value) => {
    const response = await post(server, key, "/audio/transcriptions", { model: "tiny", stream: value }, wavBytes(new Float32Array(8_000)));
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect((await response.json()).error).toMatchObject({ type: "invalid_request_error", code: "invalid_parameters", param: "stream" });
  });

  it.each([["srt"], ["vtt"], ["verbose_json"]] as const)("refuses stream=true with response_format=%s: 400 naming stream, through the openai client", async (format) => {
    const refused = await failure(client.audio.transcriptions.create({ file: await silentFile(), model: "tiny", response_format: format, stream: true }));
    expect(refused).toMatchObject({ status: 400, type: "invalid_request_error", code: "invalid_parameters", param: "stream" });
    expect(refused.message).toContain(format);
  });

  it("an empty stream field means not given, stream=false is the plain answer", async () => {
    for (const value of ["", "false"]) {
      const response = await post(server, key, "/audio/transcriptions", { model: "tiny", stream: value }, wavBytes(new Float32Array(8_000)));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ text: "" });
    }
  });

  it("refuses a caller without a valid key with 401 before any event; a wrong field of a streamed request is a plain JSON error", async () => {
    const stranger = new OpenAI({ apiKey: "mk_not-a-real-key", baseURL: server.baseURL, maxRetries: 0 });
    expect(await failure(stranger.audio.transcriptions.create({ file: await speechFile(), model: "tiny", stream: true }))).toMatchObject({
      status: 401,
      type: "authentication_error",
      code: "invalid_api_key",
    });
    expect(await failure(client.audio.transcriptions.create({ file: await speechFile(), model: "huge", stream: true }))).toMatchObject({
      status: 400,
      code: "invalid_parameters",
      param: "model",
    });
    // A model whose files are missing fails in the engine, still before the first event: the contract's 400.
    expect(await failure(client.audio.transcriptions.create({ file: await speechFile(), model: "small", stream: true }))).toMatchObject({
      status: 400,
      code: "model_not_found",
      param: "model",
    });
  });

  it("a client that disconnects mid-stream cancels its engine job", { timeout: speechTimeout({ decodes: 3 }) }, async () => {
    const { pool } = server.service;
    const before = { ...pool.stats };
    const stream = await client.audio.transcriptions.create({ file: await longFile(90), model: "tiny", temperature: 1, stream: true });
    let windowsAtFirstDelta = -1;
    for await (const event of stream) {
      if (event.type !== "transcript.text.delta") continue;
      windowsAtFirstDelta = pool.stats.windowsReported - before.windowsReported;
      break; // the client's stream aborts its request
    }
    expect(windowsAtFirstDelta).toBeLessThan(3);
    while (pool.load.running > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pool.stats.cancelled - before.cancelled).toBe(1);
    expect(pool.stats.completed - before.completed).toBe(0);
  });
});

describe("the event stream between windows", () => {
  it("sends a comment now and then while a window is decoded, which event-stream readers skip", async () => {
    let sawKeepAlive!: () => void;
    const keptAlive = new Promise<void>((resolve) => (sawKeepAlive = resolve));
    const server = http.createServer((_request, response) => {
      const events = new TranscriptEventStream(response, {}, 5);
      events.segments([{ text: " Question three" } as Segment]);
      void keptAlive.then(() => {
        events.segments([{ text: ", four marks." } as Segment]);
        events.done("Question three, four marks.");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      let body = "";
      const decoder = new TextDecoder();
      const reader = response.body!.getReader();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        body += decoder.decode(chunk.value, { stream: true });
        if (body.includes(": keep-alive\n\n")) sawKeepAlive();
      }
      expect(body.indexOf(": keep-alive")).toBeGreaterThan(body.indexOf("Question three"));
      expect(eventsOf(body)).toEqual([
        { type: "transcript.text.delta", delta: "Question three" },
        { type: "transcript.text.delta", delta: ", four marks." },
        { type: "transcript.text.done", text: "Question three, four marks." },
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe.skipIf(!testModelAvailable)("stream=true: limits and failures", () => {
  let database: Database;

  beforeAll(async () => {
    database = await createTestDatabase("pglite");
    useDatabase(database);
  });
  afterAll(async () => {
    await database?.close();
  });
  const freshKey = async (name: string) => (await asService(database.db, (tx) => createApiKey(tx, { name }))).key;

  it("keeps the rate limits: the stream carries the x-ratelimit headers, and past the limit it is a 429 JSON error", async () => {
    const server = await startSpeechServer(testSpeechConfig({ SPEECH_RATE_LIMIT_RPM: "1" }));
    try {
      const client = new OpenAI({ apiKey: await freshKey("stream limits"), baseURL: server.baseURL, maxRetries: 0 });
      const first = await client.audio.transcriptions.create({ file: await silentFile(), model: "tiny", stream: true }).withResponse();
      expect(first.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      expect(first.response.headers.get("x-ratelimit-remaining-requests")).toBe("0");
      for await (const event of first.data) expect(event.type).toBe("transcript.text.done");
      const limited = await failure(client.audio.transcriptions.create({ file: await silentFile(), model: "tiny", stream: true }));
      expect(limited).toMatchObject({ status: 429, type: "rate_limit_error", code: "rate_limit_exceeded" });
      expect(Number(limited.headers?.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it("a failure after the first event ends the stream with an error event, which the openai client throws", { timeout: speechTimeout({ loads: 1, decodes: 2 }) }, async () => {
    const server = await startSpeechServer(testSpeechConfig());
    try {
      const client = new OpenAI({ apiKey: await freshKey("stream failure"), baseURL: server.baseURL, maxRetries: 0, timeout: 120_000 });
      const stream = await client.audio.transcriptions.create({ file: await longFile(90), model: "tiny", temperature: 1, stream: true });
      const types: string[] = [];
      const outcome = await (async () => {
        for await (const event of stream) {
          types.push(event.type);
          // The engine stops under the running job (as at a shutdown): a server fault after the status went out.
          if (types.length === 1) void server.service.pool.close();
        }
        return null;
      })().catch((error: unknown) => error);
      // The first window's deltas (a window may give several), never a done.
      expect(types.length).toBeGreaterThan(0);
      expect(new Set(types)).toEqual(new Set(["transcript.text.delta"]));
      expect(outcome).toBeInstanceOf(OpenAI.APIError);
      expect((outcome as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: "server_error", code: "internal_error", param: null });
    } finally {
      await server.close();
    }
  });
});
