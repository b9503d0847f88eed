/**
 * The VAD through the service (issue 20): `chunking_strategy` on POST /v1/audio/transcriptions (only
 * the speech is decoded, times stay the original audio's, hostile values are 400), and the socket's
 * end of utterance. Random-weight model: no words are asserted, only where and how many.
 */
import path from "node:path";
import fc from "fast-check";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../server/db/client";
import { useDatabase } from "../server/db/client";
import { asService } from "../server/db/rls";
import { createApiKey } from "../server/identity/api-keys";
import { decodeAudioFile } from "../server/speech/audio";
import { speechTimeout } from "./support/busy-machine";
import { createTestDatabase } from "./support/database";
import { fuzzSettings, hostileString } from "./support/hostile-input";
import { connectRealtime } from "./support/realtime-client";
import { audioFixturesDir, readAudioFixture, wavBytes } from "./support/speech-audio";
import { type RunningSpeechServer, startSpeechServer, testModelAvailable, testSpeechConfig } from "./support/speech-server";

const vadFixture = (name: string) => readAudioFixture(path.join("vad", `${name}.flac`));
const { seed, cases } = fuzzSettings(60);

interface VerboseSegment {
  start: number;
  end: number;
  seek: number;
  words?: { start: number; end: number }[];
}

describe.skipIf(!testModelAvailable)("chunking_strategy on /v1/audio/transcriptions", () => {
  let database: Database;
  let server: RunningSpeechServer;
  let key: string;

  const post = (file: Buffer, fields: Record<string, string>) => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(file)]), "clip.flac");
    form.append("model", "tiny");
    form.append("language", "en");
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    return fetch(`${server.baseURL}/audio/transcriptions`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
  };

  beforeAll(async () => {
    database = await createTestDatabase("pglite");
    useDatabase(database);
    key = (await asService(database.db, (tx) => createApiKey(tx, { name: "vad" }))).key;
    // Temperature 1 and a few tokens: the random model then writes something in every window it decodes.
    // No requests-per-minute limit: the hostile values below are many requests of one key.
    server = await startSpeechServer(testSpeechConfig({ SPEECH_MAX_NEW_TOKENS: "12", SPEECH_RATE_LIMIT_RPM: "0" }));
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
  });

  it("decodes only the speech of a file whose speech is at 10–13 s, with times of the original audio", { timeout: speechTimeout({ loads: 1, decodes: 2 }) }, async () => {
    const response = await post(vadFixture("late-speech"), {
      chunking_strategy: "auto",
      response_format: "verbose_json",
      "timestamp_granularities[]": "word,segment",
      temperature: "1",
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { duration: number; segments: VerboseSegment[]; words: { start: number; end: number }[] };
    expect(body.duration).toBeCloseTo(14.8, 0);
    expect(body.segments.length).toBeGreaterThan(0);
    // The region is the speech (10.0–13.3 s) with 0.3 s of padding before and 0.2 s after, and the VAD's lag.
    for (const segment of body.segments) {
      expect(segment.start).toBeGreaterThanOrEqual(9.6);
      expect(segment.end).toBeLessThanOrEqual(13.8);
      expect(segment.seek).toBeGreaterThanOrEqual(9.6);
      for (const word of segment.words ?? []) expect(word.start).toBeGreaterThanOrEqual(9.6);
    }
    for (const word of body.words) expect(word.end).toBeLessThanOrEqual(13.8);
  });

  it("answers a file of noise with empty text and no decode", { timeout: speechTimeout({ decodes: 1 }) }, async () => {
    const decodesBefore = server.service.pool.stats.decodes;
    const completedBefore = server.service.pool.stats.completed;
    const response = await post(vadFixture("noise"), { chunking_strategy: '{"type":"server_vad","threshold":0.5}', response_format: "verbose_json", temperature: "1" });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ text: "", segments: [] });
    expect(server.service.pool.stats.completed).toBe(completedBefore + 1); // the engine ran the VAD…
    expect(server.service.pool.stats.decodes).toBe(decodesBefore); // …and decoded nothing
    // Without chunking_strategy the same noise is decoded (VAD is off unless asked, as OpenAI).
    expect((await post(vadFixture("noise"), { temperature: "1" })).status).toBe(200);
    expect(server.service.pool.stats.decodes).toBeGreaterThan(decodesBefore);
  });

  it("takes the object as the openai client sends it (bracketed form fields)", { timeout: speechTimeout({ decodes: 2 }) }, async () => {
    const client = new OpenAI({ apiKey: key, baseURL: server.baseURL, maxRetries: 0, timeout: 60_000 });
    const transcription = await client.audio.transcriptions.create({
      file: await toFile(vadFixture("two-sentences"), "two.flac", { type: "audio/flac" }),
      model: "tiny",
      language: "en",
      response_format: "verbose_json",
      temperature: 1,
      chunking_strategy: { type: "server_vad", threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 },
    });
    // No segment starts or ends in the three seconds of silence between the sentences (regions 0.7–4.65 s
    // and 7.09–9.2 s with their padding); one may span the seam from the first region to the second.
    const inGap = (time: number) => time > 4.8 && time < 7;
    expect(transcription.segments?.length).toBeGreaterThan(0);
    for (const segment of transcription.segments ?? []) expect([segment.start, segment.end].filter(inGap)).toEqual([]);
  });

  it("refuses bad chunking_strategy values with 400 invalid_parameters naming it", { timeout: speechTimeout({}) * 4 }, async () => {
    const tiny = wavBytes(new Float32Array(1600));
    const notAnObject = fc.oneof(
      // Under the form's 64 KB per field (past it the multipart reader refuses the whole form).
      hostileString.filter((text) => text.length < 60_000 && text.trim() !== "auto" && text.trim() !== "" && !/^\s*"auto"\s*$/.test(text)),
      fc.constantFrom("AUTO", "server_vad", "null", "true", "[]", "1", '"server_vad"', "{", '{"type":"server_vad"'),
    );
    const badValue = fc.oneof(
      fc.double({ noNaN: true }).filter((x) => x < 0 || x > 1),
      fc.constantFrom(null, true, "NaN", "Infinity", "", "0x1", [], {}, "1e999"),
    );
    const badMs = fc.oneof(fc.integer({ min: 10_001 }), fc.integer({ max: -1 }), fc.double({ min: 0.1, max: 0.9 }), fc.constantFrom(null, "1.5", "-0x1", "ten", [300]));
    const badObject = fc.oneof(
      fc.record({ type: fc.string().filter((type) => type !== "server_vad") }),
      fc.record({ type: fc.constant("server_vad"), threshold: badValue }),
      fc.record({ type: fc.constant("server_vad"), prefix_padding_ms: badMs }),
      fc.record({ type: fc.constant("server_vad"), silence_duration_ms: badMs }),
      fc.dictionary(fc.string({ minLength: 1 }).filter((name) => !["type", "threshold", "prefix_padding_ms", "silence_duration_ms"].includes(name)), fc.jsonValue(), { minKeys: 1 }).map((extra) => ({
        type: "server_vad",
        ...extra,
      })),
      fc.constant(JSON.parse('{"type":"server_vad","__proto__":{"threshold":0.5}}') as object),
    );
    const value = fc.oneof(notAnObject, badObject.map((object) => JSON.stringify(object)));
    await fc.assert(
      fc.asyncProperty(value, async (chunking) => {
        const form = new FormData();
        form.append("file", new Blob([new Uint8Array(tiny)]), "tiny.wav");
        form.append("chunking_strategy", chunking);
        const response = await fetch(`${server.baseURL}/audio/transcriptions`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
        const body = (await response.json()) as { error?: { code: string; param: string } };
        expect(response.status, `chunking_strategy=${JSON.stringify(chunking).slice(0, 200)}`).toBe(400);
        expect(body.error).toMatchObject({ code: "invalid_parameters", param: "chunking_strategy" });
      }),
      { seed, numRuns: cases },
    );
    // Both forms at once, and a bracketed field with a bad value.
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(tiny)]), "tiny.wav");
    form.append("chunking_strategy", "auto");
    form.append("chunking_strategy[type]", "server_vad");
    const both = await fetch(`${server.baseURL}/audio/transcriptions`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
    expect(both.status).toBe(400);
    const bracketed = await post(wavBytes(new Float32Array(1600)), { "chunking_strategy[type]": "server_vad", "chunking_strategy[threshold]": "1.5" });
    expect(await bracketed.json()).toMatchObject({ error: { code: "invalid_parameters", param: "chunking_strategy" } });
  });
});

describe.skipIf(!testModelAvailable)("end of utterance on /v1/websocket (Silero VAD)", () => {
  let database: Database;
  let server: RunningSpeechServer;
  let key: string;

  beforeAll(async () => {
    database = await createTestDatabase("pglite");
    useDatabase(database);
    key = (await asService(database.db, (tx) => createApiKey(tx, { name: "vad socket" }))).key;
    server = await startSpeechServer(testSpeechConfig({ SPEECH_MAX_NEW_TOKENS: "8" }));
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
  });

  /** Streams a fixture as s16le at once (the endpointer counts audio, not wall time), ends, and returns the finals. */
  async function finalsOf(name: string) {
    const samples = await decodeAudioFile(testSpeechConfig().ffmpegPath, path.join(audioFixturesDir, "vad", `${name}.flac`));
    const pcm = Buffer.alloc(samples.length * 2);
    for (let i = 0; i < samples.length; i++) pcm.writeInt16LE(Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 32767), i * 2);
    const session = await connectRealtime(`${server.websocketURL}?api_key=${key}&language=en`);
    if (!("ws" in session)) throw new Error(`refused: ${JSON.stringify(session)}`);
    for (let offset = 0; offset < pcm.length; offset += 3200) session.ws.send(pcm.subarray(offset, offset + 3200));
    session.ws.send(JSON.stringify({ type: "end" }));
    expect(await session.closed).toBe(1000);
    return session.messages.filter((message) => message.type === "final").map((message) => message.segment as { start: number; end: number });
  }

  it("sends one final for a sentence with pauses for breath, ending after it", { timeout: speechTimeout({ loads: 1, decodes: 2 }) }, async () => {
    const finals = await finalsOf("breath-pauses");
    expect(finals).toHaveLength(1);
    expect(finals[0]!.start).toBeLessThan(1);
    expect(finals[0]!.end).toBeGreaterThan(6.9);
  });

  it("sends two finals for two sentences three seconds apart, and none for noise", { timeout: speechTimeout({ decodes: 3 }) }, async () => {
    const finals = await finalsOf("two-sentences");
    expect(finals).toHaveLength(2);
    expect(finals[0]!.end).toBeLessThan(5.5);
    expect(finals[1]!.start).toBeGreaterThan(6.5);
    expect(await finalsOf("noise")).toEqual([]);
  });
});
