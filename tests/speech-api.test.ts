/**
 * The speech API through the real `openai` client, pointed at a test server on a random port that
 * mounts the same handler as server.ts. The model is whisper-tiny-random (random weights): these tests
 * check shapes, statuses and plumbing, never transcript words.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../server/db/client";
import { useDatabase } from "../server/db/client";
import { asService } from "../server/db/rls";
import { createApiKey, revokeApiKey } from "../server/identity/api-keys";
import { WHISPER_LANGUAGES } from "../server/speech/languages";
import { speechTimeout } from "./support/busy-machine";
import { openaiFailure as failure } from "./support/openai-failure";
import { createTestDatabase } from "./support/database";
import { readAudioFixture, repeatedSpeechWav, wavBytes } from "./support/speech-audio";
import { type RunningSpeechServer, startSpeechServer, testModelAvailable, testModelsDir, testSpeechConfig } from "./support/speech-server";

if (!testModelAvailable) console.warn(`\nspeech-api tests skipped: no whisper-tiny-random in ${testModelsDir} (set MODELS_DIR)\n`);

const languageNames = Object.values(WHISPER_LANGUAGES);
const speechFile = () => toFile(readAudioFixture("speech.wav"), "speech.wav", { type: "audio/wav" });

/** Raw multipart POST, for requests the openai client would not send. */
async function post(server: RunningSpeechServer, key: string, path: string, fields: Record<string, string | Blob>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value instanceof Blob) form.append(name, value, "upload.mp3");
    else form.append(name, value);
  }
  return fetch(`${server.baseURL}${path}`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
}

describe.skipIf(!testModelAvailable)("speech API with the openai client", () => {
  let database: Database;
  let server: RunningSpeechServer;
  let key: string;
  let client: OpenAI;

  beforeAll(async () => {
    database = await createTestDatabase("pglite");
    useDatabase(database);
    key = (await asService(database.db, (tx) => createApiKey(tx, { name: "speech tests" }))).key;
    server = await startSpeechServer(testSpeechConfig());
    client = new OpenAI({ apiKey: key, baseURL: server.baseURL, maxRetries: 0, timeout: 60_000 });
    // The model loads on the first request: once, here, so that no test below carries it.
    await client.audio.transcriptions.create({ file: await speechFile(), model: "tiny" });
  }, speechTimeout({ loads: 1, decodes: 1 }));
  afterAll(async () => {
    await server?.close();
    await database?.close();
  });

  describe("models and health", () => {
    it("lists the models that can be loaded (tiny and base are in the folder) and retrieves one; an unknown or missing model is 404 model_not_found", async () => {
      const page = await client.models.list();
      expect(page.data.map((model) => model.id)).toEqual(["tiny", "base"]);
      expect(await failure(client.models.retrieve("large"))).toMatchObject({ status: 404, code: "model_not_found" });
      for (const model of page.data) expect(model).toMatchObject({ object: "model", owned_by: "markbook", created: expect.any(Number) });
      expect(await client.models.retrieve("tiny")).toMatchObject({ id: "tiny", object: "model", root: "whisper-tiny-random" });
      expect(await failure(client.models.retrieve("%E0%A4%A"))).toMatchObject({ status: 404, code: "model_not_found" });
      expect(await failure(client.models.retrieve("whisper-9"))).toMatchObject({
        status: 404,
        type: "invalid_request_error",
        code: "model_not_found",
      });
    });

    it("answers health without a key with the status only, and the details with a valid key", async () => {
      for (const headers of [{}, { authorization: "Bearer mk_not-a-real-key" }, { authorization: "Basic x" }] as Record<string, string>[]) {
        const response = await fetch(`${server.baseURL}/health`, { headers });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ status: "healthy", service: "markbook-speech" });
      }
      const detailed = await fetch(`${server.baseURL}/health`, { headers: { authorization: `Bearer ${key}` } });
      const body = await detailed.json();
      expect(body).toMatchObject({ status: "healthy", service: "markbook-speech", version: expect.stringMatching(/^\d+\.\d+\.\d+/), uptime: expect.any(Number) });
      expect(body.models.tiny).toMatchObject({ status: "healthy", from: "disk" });
      expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
    });

    it("reports unhealthy when ffmpeg cannot run: the reason (naming the path) only to a key", async () => {
      const broken = await startSpeechServer(testSpeechConfig({ FFMPEG_PATH: "/nonexistent/ffmpeg" }));
      try {
        const body = await (await fetch(`${broken.baseURL}/health`, { headers: { authorization: `Bearer ${key}` } })).json();
        expect(body.status).toBe("unhealthy");
        expect(body.reason).toContain("/nonexistent/ffmpeg");
        const anonymous = await (await fetch(`${broken.baseURL}/health`)).text();
        expect(JSON.parse(anonymous)).toEqual({ status: "unhealthy", service: "markbook-speech" });
      } finally {
        await broken.close();
      }
    });

    it("refuses a wrong, a missing and a revoked key with 401 invalid_api_key", async () => {
      const wrong = new OpenAI({ apiKey: "mk_not-a-real-key", baseURL: server.baseURL, maxRetries: 0 });
      const expected = { status: 401, type: "authentication_error", code: "invalid_api_key" };
      expect(await failure(wrong.models.list())).toMatchObject(expected);
      expect(await failure(wrong.audio.transcriptions.create({ file: await speechFile(), model: "tiny" }))).toMatchObject(expected);
      const missing = await fetch(`${server.baseURL}/models`);
      expect(missing.status).toBe(401);
      expect((await missing.json()).error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
      const revoked = await asService(database.db, (tx) => createApiKey(tx, { name: "to revoke" }));
      const revokedClient = new OpenAI({ apiKey: revoked.key, baseURL: server.baseURL, maxRetries: 0 });
      expect((await revokedClient.models.list()).data).toHaveLength(2);
      await asService(database.db, (tx) => revokeApiKey(tx, { id: revoked.id }));
      expect(await failure(revokedClient.models.list())).toMatchObject(expected);
    });
  });

  describe("transcriptions and translations", () => {
    it("transcribes in json and text", { timeout: speechTimeout({ decodes: 2 }) }, async () => {
      const json = await client.audio.transcriptions.create({ file: await speechFile(), model: "tiny" });
      expect(typeof json.text).toBe("string");
      const text = await client.audio.transcriptions.create({ file: await speechFile(), model: "whisper-1", response_format: "text" });
      expect(typeof text).toBe("string");
      expect(text).toMatch(/\n$/);
    });

    it("transcribes in srt and vtt, with well-formed cues", { timeout: speechTimeout({ decodes: 2 }) }, async () => {
      const srt = await client.audio.transcriptions.create({ file: await speechFile(), model: "tiny", response_format: "srt", temperature: 1 });
      expect(srt).toMatch(/^1\n\d{2}:\d{2}:\d{2},\d{3} --> \d{2}:\d{2}:\d{2},\d{3}\n.+\n\n/);
      const vtt = await client.audio.transcriptions.create({ file: await speechFile(), model: "tiny", response_format: "vtt", temperature: 1 });
      expect(vtt).toMatch(/^WEBVTT\n\n\d{2}:\d{2}:\d{2}\.\d{3} --> \d{2}:\d{2}:\d{2}\.\d{3}\n.+\n\n/);
    });

    it("transcribes in verbose_json with every Segment field and the detected language by name", { timeout: speechTimeout({ decodes: 1 }) }, async () => {
      const result = await client.audio.transcriptions.create({
        file: await speechFile(),
        model: "tiny",
        response_format: "verbose_json",
        temperature: 1,
      });
      expect(result.language).toBeOneOf(languageNames);
      expect(result.duration).toBeCloseTo(3.71, 1);
      expect(result.segments!.length).toBeGreaterThan(0);
      for (const segment of result.segments!) {
        expect(segment).toEqual({
          id: expect.any(Number),
          seek: 0,
          start: expect.any(Number),
          end: expect.any(Number),
          text: expect.any(String),
          tokens: expect.arrayContaining([expect.any(Number)]),
          temperature: 1,
          avg_logprob: expect.any(Number),
          compression_ratio: expect.any(Number),
          no_speech_prob: expect.any(Number),
        });
        expect(segment.avg_logprob).toBeLessThanOrEqual(0);
        expect(segment.no_speech_prob).toBeGreaterThanOrEqual(0);
        expect(segment.no_speech_prob).toBeLessThanOrEqual(1);
      }
      expect(result.text).toBe(result.segments!.map((segment) => segment.text).join("").trim());
    });

    it("uses the given language and reports it by its English name", { timeout: speechTimeout({ decodes: 1 }) }, async () => {
      const result = await client.audio.transcriptions.create({
        file: await speechFile(),
        model: "tiny",
        language: "fr",
        prompt: "Commentaires sur la copie de Léa.",
        response_format: "verbose_json",
      });
      expect(result.language).toBe("french");
    });

    it("gives word timestamps from cross-attention when asked", { timeout: speechTimeout({ decodes: 2 }) }, async () => {
      const result = await client.audio.transcriptions.create({
        file: await speechFile(),
        model: "tiny",
        response_format: "verbose_json",
        temperature: 1,
        timestamp_granularities: ["word", "segment"],
      });
      expect(result.words!.length).toBeGreaterThan(0);
      for (const word of result.words!) {
        expect(word).toMatchObject({ word: expect.any(String), start: expect.any(Number), end: expect.any(Number) });
        expect(word.end).toBeGreaterThanOrEqual(word.start);
      }
      expect(result.segments!.length).toBeGreaterThan(0);
      const wordsOnly = await client.audio.transcriptions.create({
        file: await speechFile(),
        model: "tiny",
        response_format: "verbose_json",
        timestamp_granularities: ["word"],
      });
      expect(wordsOnly.segments).toBeUndefined();
      expect(Array.isArray(wordsOnly.words)).toBe(true);
    });

    it("translates into English in every format", { timeout: speechTimeout({ decodes: 3 }) }, async () => {
      const json = await client.audio.translations.create({ file: await speechFile(), model: "tiny" });
      expect(typeof json.text).toBe("string");
      const verbose = await client.audio.translations.create({ file: await speechFile(), model: "tiny", response_format: "verbose_json", temperature: 1 });
      expect(verbose).toMatchObject({ task: "translate", language: "english" });
      expect((verbose as unknown as { segments: unknown[] }).segments.length).toBeGreaterThan(0);
      const srt = await client.audio.translations.create({ file: await speechFile(), model: "tiny", response_format: "srt" });
      expect(typeof srt).toBe("string");
    });

    it("transcribes audio longer than 30 s window by window, with global timestamps", { timeout: speechTimeout({ decodes: 3 }) }, async () => {
      const result = await client.audio.transcriptions.create({
        file: await toFile(repeatedSpeechWav(65), "long.wav"),
        model: "tiny",
        response_format: "verbose_json",
        temperature: 1,
      });
      expect(result.duration).toBeCloseTo(65, 1);
      const seeks = new Set(result.segments!.map((segment) => segment.seek));
      expect([...seeks].sort((a, b) => a - b)).toEqual([0, 30, 60]);
      for (const segment of result.segments!) expect(segment.start).toBeGreaterThanOrEqual(segment.seek);
      expect(result.segments!.map((segment) => segment.id)).toEqual(result.segments!.map((_, index) => index));
    });

    it("gives empty text for silent and for sample-less audio, without an error", async () => {
      const silent = await client.audio.transcriptions.create({ file: await toFile(wavBytes(new Float32Array(16_000 * 3)), "silence.wav"), model: "tiny", response_format: "verbose_json" });
      expect(silent).toMatchObject({ text: "", segments: [] });
      expect(silent.duration).toBeCloseTo(3, 1);
      const empty = await client.audio.transcriptions.create({ file: await toFile(wavBytes(new Float32Array(0)), "empty.wav"), model: "tiny" });
      expect(empty.text).toBe("");
    });
  });

  describe("errors of the contract's table", () => {
    it.each([
      ["temperature", { temperature: "1.5" }],
      ["temperature", { temperature: "warm" }],
      ["temperature", { temperature: "" }],
      ["language", { language: "english" }],
      ["language", { language: "xx" }],
      ["response_format", { response_format: "xml" }],
      ["model", { model: "huge" }],
      ["timestamp_granularities", { response_format: "json", "timestamp_granularities[]": "word" }],
      ["timestamp_granularities", { response_format: "verbose_json", "timestamp_granularities[]": "sentence" }],
    ])("400 invalid_parameters naming %s", async (param, fields) => {
      const response = await post(server, key, "/audio/transcriptions", { ...fields, file: new Blob([readAudioFixture("speech.mp3")]) });
      expect(response.status).toBe(400);
      expect((await response.json()).error).toMatchObject({ type: "invalid_request_error", code: "invalid_parameters", param });
    });

    it("400 naming file when it is missing or the body is not multipart, and language on translations", async () => {
      const missing = await post(server, key, "/audio/transcriptions", { model: "tiny" });
      expect(missing.status).toBe(400);
      expect((await missing.json()).error).toMatchObject({ code: "invalid_parameters", param: "file" });
      const json = await fetch(`${server.baseURL}/audio/transcriptions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "tiny" }),
      });
      expect(json.status).toBe(400);
      expect((await json.json()).error).toMatchObject({ code: "invalid_parameters", param: "file" });
      const translation = await post(server, key, "/audio/translations", { language: "fr", file: new Blob([readAudioFixture("speech.mp3")]) });
      expect(translation.status).toBe(400);
      expect((await translation.json()).error).toMatchObject({ code: "invalid_parameters", param: "language" });
    });

    it("422 invalid_file_format for a renamed text file and a zero-byte file; a truncated mp3 is 422 or text, never 500", async () => {
      const expected = { status: 422, type: "invalid_request_error", code: "invalid_file_format" };
      const text = await toFile(Buffer.from("Marks for question 3: 4/5\n".repeat(40)), "notes.mp3", { type: "audio/mpeg" });
      expect(await failure(client.audio.transcriptions.create({ file: text, model: "tiny" }))).toMatchObject(expected);
      const zero = await toFile(Buffer.alloc(0), "zero.wav", { type: "audio/wav" });
      expect(await failure(client.audio.transcriptions.create({ file: zero, model: "tiny" }))).toMatchObject(expected);
      for (const cut of [64, 700, 5000]) {
        const truncated = await toFile(readAudioFixture("speech.mp3").subarray(0, cut), "cut.mp3");
        const outcome = await client.audio.transcriptions.create({ file: truncated, model: "tiny" }).then(
          (result) => ({ status: 200, text: result.text }),
          (error: InstanceType<typeof OpenAI.APIError>) => ({ status: error.status, code: (error.error as { code?: string }).code }),
        );
        if (outcome.status === 200) expect(typeof (outcome as { text: string }).text).toBe("string");
        else expect(outcome).toEqual({ status: 422, code: "invalid_file_format" });
      }
    });

    it("404 for an unknown /v1 path, with the error body", async () => {
      const response = await fetch(`${server.baseURL}/audio/speech`, { method: "POST", headers: { authorization: `Bearer ${key}` } });
      expect(response.status).toBe(404);
      expect((await response.json()).error).toMatchObject({ type: "invalid_request_error" });
    });

    it("400 model_not_found naming model, saying which model is missing and how to install it, when its files are not here and downloads are off", async () => {
      const result = await failure(client.audio.transcriptions.create({ file: await speechFile(), model: "small" }));
      expect(result).toMatchObject({ status: 400, type: "invalid_request_error", code: "model_not_found", param: "model" });
      for (const hint of ["'small'", "MODELS_DIR", "SPEECH_MODEL_SMALL", "ALLOW_REMOTE_MODELS=true"]) expect(result.message).toContain(hint);
    });
  });

  it("loaded the model once for all the requests above (lazily, and kept while in use)", () => {
    expect(server.service.pool.stats).toMatchObject({ modelLoads: 1, modelUnloads: 0 });
    expect(server.service.pool.loadedModels).toEqual(["whisper-tiny-random"]);
  });
});

describe.skipIf(!testModelAvailable)("speech API limits", () => {
  let database: Database;
  let key: string;

  beforeAll(async () => {
    database = await createTestDatabase("pglite");
    useDatabase(database);
    key = (await asService(database.db, (tx) => createApiKey(tx, { name: "limits" }))).key;
  });
  afterAll(async () => {
    await database?.close();
  });

  it("413 file_too_large for a file over MAX_AUDIO_BYTES, through the openai client; 400 past MAX_AUDIO_SECONDS", async () => {
    const server = await startSpeechServer(testSpeechConfig({ MAX_AUDIO_BYTES: "100000", MAX_AUDIO_SECONDS: "2" }));
    try {
      const client = new OpenAI({ apiKey: key, baseURL: server.baseURL, maxRetries: 0 });
      const big = await toFile(repeatedSpeechWav(4), "big.wav"); // 128 kB
      expect(await failure(client.audio.transcriptions.create({ file: big, model: "tiny" }))).toMatchObject({
        status: 413,
        type: "invalid_request_error",
        code: "file_too_large",
      });
      // Refused from the declared length alone, before the body is read:
      const huge = await fetch(`${server.baseURL}/audio/transcriptions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "multipart/form-data; boundary=x", "content-length": String(50 * 1024 * 1024) },
        body: "--x--\r\n",
      }).catch(() => null);
      if (huge) expect(huge.status).toBe(413);
      // Small in bytes but longer than MAX_AUDIO_SECONDS: 400 naming the file.
      const long = await failure(client.audio.transcriptions.create({ file: await toFile(readAudioFixture("speech.mp3"), "speech.mp3"), model: "tiny" }));
      expect(long).toMatchObject({ status: 400, code: "invalid_parameters", param: "file" });
    } finally {
      await server.close();
    }
  });

  // The limits are counted in the database, shared by every server: each of these tests has a key of its own.
  const freshKey = async (name: string) => (await asService(database.db, (tx) => createApiKey(tx, { name }))).key;

  it("429 rate_limit_exceeded with x-ratelimit headers and Retry-After past the per-key requests per minute, counted across servers", { timeout: speechTimeout({ loads: 2, decodes: 2 }) }, async () => {
    // Two servers (as two app nodes) on one database: the key's requests are counted once for both.
    const [server, otherServer] = await Promise.all([1, 2].map(() => startSpeechServer(testSpeechConfig({ SPEECH_RATE_LIMIT_RPM: "2" }))));
    try {
      const apiKey = await freshKey("requests");
      const client = new OpenAI({ apiKey, baseURL: server!.baseURL, maxRetries: 0 });
      const otherClient = new OpenAI({ apiKey, baseURL: otherServer!.baseURL, maxRetries: 0 });
      const silence = () => toFile(wavBytes(new Float32Array(8000)), "silence.wav");
      const first = await client.audio.transcriptions.create({ file: await silence(), model: "tiny" }).withResponse();
      expect(first.response.headers.get("x-ratelimit-limit-requests")).toBe("2");
      expect(first.response.headers.get("x-ratelimit-remaining-requests")).toBe("1");
      const second = await otherClient.audio.transcriptions.create({ file: await silence(), model: "tiny" }).withResponse();
      expect(second.response.headers.get("x-ratelimit-remaining-requests")).toBe("0");
      const limited = await failure(client.audio.transcriptions.create({ file: await silence(), model: "tiny" }));
      expect(limited).toMatchObject({ status: 429, type: "rate_limit_error", code: "rate_limit_exceeded" });
      expect(Number(limited.headers?.get("retry-after"))).toBeGreaterThan(0);
      expect(limited.headers?.get("x-ratelimit-remaining-requests")).toBe("0");
    } finally {
      await Promise.all([server?.close(), otherServer?.close()]);
    }
  });

  it("429 past the per-key seconds of audio per minute", { timeout: speechTimeout({ loads: 1, decodes: 1 }) }, async () => {
    const server = await startSpeechServer(testSpeechConfig({ SPEECH_RATE_LIMIT_AUDIO_SECONDS: "5" }));
    try {
      const client = new OpenAI({ apiKey: await freshKey("audio"), baseURL: server.baseURL, maxRetries: 0 });
      const first = await client.audio.transcriptions.create({ file: await speechFile(), model: "tiny" }).withResponse();
      expect(first.response.headers.get("x-ratelimit-limit-audio-seconds")).toBe("5");
      expect(first.response.headers.get("x-ratelimit-remaining-audio-seconds")).toBe("1");
      const limited = await failure(client.audio.transcriptions.create({ file: await speechFile(), model: "tiny" }));
      expect(limited).toMatchObject({ status: 429, type: "rate_limit_error", code: "rate_limit_exceeded" });
      expect(limited.message).toContain("seconds of audio");
    } finally {
      await server.close();
    }
  });

  it("400 naming timestamp_granularities when the model cannot give word timestamps", { timeout: speechTimeout({ loads: 1, decodes: 1 }) }, async () => {
    // The same weights, but a generation config without alignment heads: no word alignment possible.
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-models-"));
    const model = path.join(folder, "no-alignment");
    fs.mkdirSync(model);
    const source = path.join(testModelsDir, "whisper-tiny-random");
    for (const entry of fs.readdirSync(source)) {
      if (entry === "generation_config.json") continue;
      fs.symlinkSync(path.join(source, entry), path.join(model, entry));
    }
    const generation = JSON.parse(fs.readFileSync(path.join(source, "generation_config.json"), "utf8"));
    delete generation.alignment_heads;
    fs.writeFileSync(path.join(model, "generation_config.json"), JSON.stringify(generation));
    const server = await startSpeechServer(testSpeechConfig({ MODELS_DIR: folder, SPEECH_MODEL_TINY: "no-alignment" }));
    try {
      const client = new OpenAI({ apiKey: key, baseURL: server.baseURL, maxRetries: 0 });
      const refused = await failure(
        client.audio.transcriptions.create({ file: await speechFile(), model: "tiny", response_format: "verbose_json", timestamp_granularities: ["word"] }),
      );
      expect(refused).toMatchObject({ status: 400, type: "invalid_request_error", code: "invalid_parameters", param: "timestamp_granularities" });
      // Segments still work with that model.
      const segments = await client.audio.transcriptions.create({ file: await speechFile(), model: "tiny", response_format: "verbose_json" });
      expect(Array.isArray(segments.segments)).toBe(true);
    } finally {
      await server.close();
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it("429 when the engine queue is full, and a client that hangs up cancels its running job", { timeout: speechTimeout({ loads: 1, decodes: 3 }) }, async () => {
    const server = await startSpeechServer(testSpeechConfig({ SPEECH_QUEUE_MAX: "0", SPEECH_RATE_LIMIT_RPM: "0" }));
    try {
      const client = new OpenAI({ apiKey: key, baseURL: server.baseURL, maxRetries: 0 });
      const abort = new AbortController();
      const long = client.audio.transcriptions
        .create({ file: await toFile(repeatedSpeechWav(90), "long.wav"), model: "tiny", temperature: 1 }, { signal: abort.signal })
        .catch((error: unknown) => error);
      while (server.service.pool.load.running === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const busy = await failure(client.audio.transcriptions.create({ file: await speechFile(), model: "tiny" }));
      expect(busy).toMatchObject({ status: 429, type: "rate_limit_error", code: "rate_limit_exceeded" });
      expect(busy.headers?.get("retry-after")).toBe("1");
      abort.abort();
      expect(await long).toBeInstanceOf(OpenAI.APIUserAbortError);
      while (server.service.pool.load.running > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(server.service.pool.stats).toMatchObject({ cancelled: 1, completed: 0 });
    } finally {
      await server.close();
    }
  });

  it("429 when the decoded audio held by the engine would pass SPEECH_QUEUE_MAX_AUDIO_MB", { timeout: speechTimeout({ loads: 1, decodes: 4 }) }, async () => {
    const server = await startSpeechServer(testSpeechConfig({ SPEECH_QUEUE_MAX_AUDIO_MB: "1", SPEECH_RATE_LIMIT_RPM: "0" }));
    try {
      const client = new OpenAI({ apiKey: key, baseURL: server.baseURL, maxRetries: 0 });
      const abort = new AbortController();
      // 90 s is 5.6 MB of float32: over the budget, but admitted because the engine holds nothing else.
      const long = client.audio.transcriptions
        .create({ file: await toFile(repeatedSpeechWav(90), "long.wav"), model: "tiny", temperature: 1 }, { signal: abort.signal })
        .catch((error: unknown) => error);
      while (server.service.pool.load.running === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await failure(client.audio.transcriptions.create({ file: await speechFile(), model: "tiny" }))).toMatchObject({
        status: 429,
        code: "rate_limit_exceeded",
      });
      abort.abort();
      await long;
      while (server.service.pool.load.running > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      // The budget is free again.
      expect((await client.audio.transcriptions.create({ file: await speechFile(), model: "tiny" })).text).toEqual(expect.any(String));
    } finally {
      await server.close();
    }
  });

  it("unloads an idle model after MODEL_TTL_SECONDS and loads it again on the next request", { timeout: speechTimeout({ loads: 2, decodes: 2 }) }, async () => {
    const server = await startSpeechServer(testSpeechConfig({ MODEL_TTL_SECONDS: "1" }));
    try {
      const client = new OpenAI({ apiKey: key, baseURL: server.baseURL, maxRetries: 0 });
      await client.audio.transcriptions.create({ file: await speechFile(), model: "tiny" });
      expect(server.service.pool.stats.modelLoads).toBe(1);
      while (server.service.pool.loadedModels.length > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(server.service.pool.stats.modelUnloads).toBe(1);
      await client.audio.transcriptions.create({ file: await speechFile(), model: "tiny" });
      expect(server.service.pool.stats.modelLoads).toBe(2);
    } finally {
      await server.close();
    }
  });

  it("falls back to a higher temperature when the greedy decode fails the log-probability test", { timeout: speechTimeout({ loads: 1, decodes: 2 }) }, async () => {
    const server = await startSpeechServer(testSpeechConfig({ SPEECH_FALLBACK_TEMPERATURES: "0.5" }));
    try {
      const client = new OpenAI({ apiKey: key, baseURL: server.baseURL, maxRetries: 0 });
      // The random model is never confident (average log-probability about -7), so 0 always fails.
      const result = await client.audio.transcriptions.create({ file: await speechFile(), model: "tiny", response_format: "verbose_json" });
      expect(server.service.pool.stats.decodes).toBe(2); // greedy, then 0.5
      expect(result.segments!.length).toBeGreaterThan(0);
      for (const segment of result.segments!) expect(segment.temperature).toBe(0.5);
    } finally {
      await server.close();
    }
  });

  it("keeps the greedy decode when it meets the thresholds", { timeout: speechTimeout({ loads: 1, decodes: 1 }) }, async () => {
    const server = await startSpeechServer(
      testSpeechConfig({ SPEECH_FALLBACK_TEMPERATURES: "0.5", SPEECH_LOGPROB_THRESHOLD: "-1000", SPEECH_COMPRESSION_RATIO_THRESHOLD: "1000" }),
    );
    try {
      const client = new OpenAI({ apiKey: key, baseURL: server.baseURL, maxRetries: 0 });
      const greedy = await client.audio.transcriptions.create({ file: await speechFile(), model: "tiny", response_format: "verbose_json" });
      expect(server.service.pool.stats.decodes).toBe(1); // thresholds met: no fallback
      for (const segment of greedy.segments!) expect(segment.temperature).toBe(0);
    } finally {
      await server.close();
    }
  });
});
