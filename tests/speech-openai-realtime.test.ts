/**
 * /v1/realtime speaks OpenAI's realtime transcription protocol: the real `openai` client
 * (OpenAIRealtimeWS, over wss with a test certificate) transcribes against Markbook; hostile events each
 * get an `error` event and the session goes on.
 */
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import OpenAI from "openai";
import { OpenAIRealtimeWS } from "openai/realtime/ws";
import type { RealtimeServerEvent } from "openai/resources/realtime/realtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { Resampler24kTo16k } from "../server/speech/resample";
import type { TranscribeRequest } from "../server/speech/engine-protocol";
import { speechTimeout } from "./support/busy-machine";
import { fuzzSettings, hostileNumber, hostileString } from "./support/hostile-input";
import { speechPcm24k } from "./support/speech-audio";
import { type RunningSpeechServer, startSpeechServer, testModelAvailable, testSpeechConfig } from "./support/speech-server";

const tlsDir = path.join(import.meta.dirname, "fixtures", "tls");
const tls = { key: fs.readFileSync(path.join(tlsDir, "localhost-key.pem")), cert: fs.readFileSync(path.join(tlsDir, "localhost-cert.pem")) };

const KEY = "mk_test_openai_realtime";
/** No database: keys and budgets are the dictation socket's tests' business (the same code). */
const authenticate = async (key: string) => (key === KEY ? "openai-realtime-key" : null);

type ServerEvent = RealtimeServerEvent | { type: string; [field: string]: unknown };
type EventOf<Type extends string> = Extract<RealtimeServerEvent, { type: Type }>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Connection {
  rt: OpenAIRealtimeWS;
  events: ServerEvent[];
  closed: Promise<number>;
  /** Resolves once `count` events of `type` have come (no deadline of its own: the test's timeout is it). */
  waitFor: <Type extends string>(type: Type, count?: number) => Promise<EventOf<Type>[]>;
}

/** Opens a session with the real client; rejects with the status and body when the handshake is refused. */
function connect(server: RunningSpeechServer, apiKey = KEY, model = "tiny"): Promise<Connection> {
  const client = new OpenAI({ apiKey, baseURL: server.baseURL });
  const rt = new OpenAIRealtimeWS({ model, options: { ca: tls.cert } }, client);
  const events: ServerEvent[] = [];
  rt.on("event", (event) => events.push(event));
  rt.on("error", () => {}); // error events are read from `events`
  const closed = new Promise<number>((resolve) => rt.socket.on("close", (code) => resolve(code)));
  const waitFor = async <Type extends string>(type: Type, count = 1) => {
    const of = () => events.filter((event) => event.type === type) as EventOf<Type>[];
    while (of().length < count) await sleep(20);
    return of();
  };
  return new Promise((resolve, reject) => {
    rt.socket.once("open", () => resolve({ rt, events, closed, waitFor }));
    rt.socket.once("unexpected-response", (_request, response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => reject(Object.assign(new Error(`refused: ${response.statusCode}`), { status: response.statusCode, body: JSON.parse(body) })));
    });
  });
}

/** Appends 24 kHz PCM16 in 100 ms events, as a microphone would (as fast as the socket takes them). */
function append(rt: OpenAIRealtimeWS, pcm: Buffer) {
  for (let offset = 0; offset < pcm.length; offset += 4800) rt.send({ type: "input_audio_buffer.append", audio: pcm.subarray(offset, offset + 4800).toString("base64") });
}

const silence = (seconds: number) => Buffer.alloc(Math.round(seconds * 24_000) * 2);

describe("24 kHz → 16 kHz resampling", () => {
  const tone = (hz: number, rate: number, seconds: number) => Float32Array.from({ length: rate * seconds }, (_, i) => 0.5 * Math.sin((2 * Math.PI * hz * i) / rate));
  const rms = (samples: Float32Array) => Math.sqrt(samples.reduce((sum, sample) => sum + sample * sample, 0) / samples.length);

  it("keeps a speech-band tone where it was, and streamed chunks give what one push gives", () => {
    const input = tone(1000, 24_000, 1);
    const whole = new Resampler24kTo16k().push(input);
    const streamed = new Resampler24kTo16k();
    const pieces: number[] = [];
    for (let offset = 0, size = 1; offset < input.length; offset += size, size = (size * 7 + 3) % 997) pieces.push(...streamed.push(input.subarray(offset, offset + size)));
    expect(pieces.length).toBe(whole.length);
    expect(pieces.every((sample, i) => Math.abs(sample - whole[i]!) < 1e-6)).toBe(true);
    expect(whole.length).toBeGreaterThan(15_980); // all but the samples that wait for the next chunk
    const expected = tone(1000, 16_000, 1);
    // Past the start (the stream begins after silence), output k is the tone at input 1.5 k.
    for (let i = 100; i < whole.length; i++) expect(Math.abs(whole[i]! - expected[i]!)).toBeLessThan(0.01);
  });

  it("removes what 16 kHz cannot hold (above 8 kHz) instead of folding it into the speech band", () => {
    expect(rms(new Resampler24kTo16k().push(tone(10_000, 24_000, 1)).subarray(100))).toBeLessThan(0.01);
  });
});

describe.skipIf(!testModelAvailable)("/v1/realtime with OpenAI's realtime client", () => {
  let server: RunningSpeechServer;
  const requests: TranscribeRequest[] = [];

  beforeAll(async () => {
    server = await startSpeechServer(testSpeechConfig({ SPEECH_WS_MAX_SESSIONS: "2", SPEECH_RATE_LIMIT_RPM: "0", SPEECH_RATE_LIMIT_AUDIO_SECONDS: "0" }), { authenticate }, {}, { tls });
    // What the engine is asked: the real pool still does the work.
    const transcribe = server.service.pool.transcribe.bind(server.service.pool);
    server.service.pool.transcribe = (request, signal) => {
      requests.push(request);
      return transcribe(request, signal);
    };
  });
  afterAll(async () => {
    await server?.close();
  });

  it(
    "configures a transcription session; server VAD cuts two utterances: speech_started, speech_stopped, committed, delta, completed",
    { timeout: speechTimeout({ loads: 1, decodes: 2 }) },
    async () => {
      const { rt, events, waitFor } = await connect(server);
      const [created] = await waitFor("session.created");
      expect(created!.session).toMatchObject({ type: "transcription", audio: { input: { format: { type: "audio/pcm", rate: 24000 }, turn_detection: { type: "server_vad" } } } });

      const prompt = "Photosynthesis, chlorophyll, Siobhán Ní Bhriain";
      rt.send({
        type: "session.update",
        session: {
          type: "transcription",
          audio: {
            input: {
              format: { type: "audio/pcm", rate: 24000 },
              transcription: { model: "whisper-1", language: "en", prompt },
              turn_detection: { type: "server_vad", threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 },
            },
          },
        },
      });
      const [updated] = await waitFor("session.updated");
      expect(updated!.session).toMatchObject({ type: "transcription", audio: { input: { transcription: { model: "tiny", language: "en", prompt }, turn_detection: { silence_duration_ms: 500 } } } });

      append(rt, Buffer.concat([speechPcm24k(3), silence(1), speechPcm24k(2), silence(1)]));
      const completed = await waitFor("conversation.item.input_audio_transcription.completed", 2);

      const started = events.filter((event) => event.type === "input_audio_buffer.speech_started") as EventOf<"input_audio_buffer.speech_started">[];
      const stopped = events.filter((event) => event.type === "input_audio_buffer.speech_stopped") as EventOf<"input_audio_buffer.speech_stopped">[];
      const committed = events.filter((event) => event.type === "input_audio_buffer.committed") as EventOf<"input_audio_buffer.committed">[];
      expect(committed).toHaveLength(2);
      expect(committed[0]!.previous_item_id).toBeNull();
      expect(committed[1]!.previous_item_id).toBe(committed[0]!.item_id);
      for (const [index, item] of committed.entries()) {
        const itemId = item.item_id;
        const order = ["input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped", "input_audio_buffer.committed", "conversation.item.input_audio_transcription.delta", "conversation.item.input_audio_transcription.completed"];
        const positions = order.map((type) => events.findIndex((event) => event.type === type && (event as { item_id?: string }).item_id === itemId));
        expect(positions.every((position) => position >= 0)).toBe(true);
        expect([...positions].sort((a, b) => a - b)).toEqual(positions);
        expect(started[index]!.audio_start_ms).toBeLessThan(stopped[index]!.audio_end_ms);
        expect(completed[index]).toMatchObject({ item_id: itemId, content_index: 0, transcript: expect.any(String), usage: { type: "duration", seconds: expect.any(Number) } });
      }
      // The second utterance starts after the one-second pause (session time, in ms).
      expect(started[1]!.audio_start_ms).toBeGreaterThan(3500);
      expect(events.filter((event) => event.type === "error")).toEqual([]);
      // The session's prompt and language are what the engine was given.
      const passes = requests.filter((request) => request.prompt === prompt && request.language === "en");
      expect(passes.length).toBeGreaterThanOrEqual(2);
      rt.close();
    },
  );

  it("with turn_detection null only a commit ends an utterance; clear drops the buffer; an empty commit is an error", { timeout: speechTimeout({ decodes: 1 }) }, async () => {
    const { rt, events, waitFor } = await connect(server);
    await waitFor("session.created");
    rt.send({ type: "session.update", session: { type: "transcription", audio: { input: { turn_detection: null } } } });
    const [updated] = await waitFor("session.updated");
    expect(updated!.session).toMatchObject({ audio: { input: { turn_detection: null } } });

    rt.send({ type: "input_audio_buffer.commit", event_id: "empty-commit" });
    const [empty] = await waitFor("error");
    expect(empty!.error).toMatchObject({ type: "invalid_request_error", code: "input_audio_buffer_commit_empty", event_id: "empty-commit" });

    append(rt, speechPcm24k(1));
    rt.send({ type: "input_audio_buffer.clear" });
    await waitFor("input_audio_buffer.cleared");
    rt.send({ type: "input_audio_buffer.commit" });
    await waitFor("error", 2); // cleared: nothing to commit

    append(rt, Buffer.concat([speechPcm24k(2), silence(1.5)]));
    rt.send({ type: "input_audio_buffer.commit" });
    const [committed] = await waitFor("input_audio_buffer.committed");
    const [completed] = await waitFor("conversation.item.input_audio_transcription.completed");
    expect(completed!.item_id).toBe(committed!.item_id);
    // Silence did not end anything: the one item holds the speech and the pause after it.
    expect(events.some((event) => event.type === "input_audio_buffer.speech_started" || event.type === "input_audio_buffer.speech_stopped")).toBe(false);
    expect(completed!.usage).toMatchObject({ type: "duration", seconds: expect.closeTo(3.5, 1) });
    rt.close();
  });

  it("speaks the beta dialect to a beta client: transcription_session.created and .updated", async () => {
    const socket = new WebSocket(`${server.realtimeURL}?intent=transcription`, { ca: tls.cert, headers: { Authorization: `Bearer ${KEY}`, "OpenAI-Beta": "realtime=v1" } });
    const events: ServerEvent[] = [];
    socket.on("message", (data) => events.push(JSON.parse((data as Buffer).toString()) as ServerEvent));
    await new Promise((resolve) => socket.once("open", resolve));
    socket.send(
      JSON.stringify({
        type: "transcription_session.update",
        session: { input_audio_format: "pcm16", input_audio_transcription: { model: "whisper-1", language: "fr", prompt: "copie" }, turn_detection: { type: "server_vad", silence_duration_ms: 800 } },
      }),
    );
    while (events.length < 2) await sleep(20);
    expect(events[0]).toMatchObject({ type: "transcription_session.created", session: { input_audio_format: "pcm16", turn_detection: { type: "server_vad" } } });
    expect(events[1]).toMatchObject({ type: "transcription_session.updated", session: { input_audio_transcription: { model: "tiny", language: "fr", prompt: "copie" }, turn_detection: { silence_duration_ms: 800 } } });
    socket.close();
  });

  it("takes the key as a browser sends it (subprotocol openai-insecure-api-key.<key>) and answers the realtime subprotocol", async () => {
    const socket = new WebSocket(`${server.realtimeURL}?intent=transcription`, ["realtime", `openai-insecure-api-key.${KEY}`], { ca: tls.cert });
    const first = new Promise<ServerEvent>((resolve) => socket.once("message", (data) => resolve(JSON.parse((data as Buffer).toString()) as ServerEvent)));
    await new Promise((resolve) => socket.once("open", resolve));
    expect(socket.protocol).toBe("realtime");
    expect(await first).toMatchObject({ type: "session.created" });
    socket.close();
  });

  it("refuses a bad key (401), another intent or an unknown model (400) before the upgrade, with the Error body", async () => {
    await expect(connect(server, "mk_wrong")).rejects.toMatchObject({ status: 401, body: { error: { type: "authentication_error", code: "invalid_api_key" } } });
    await expect(connect(server, KEY, "gpt-realtime")).rejects.toMatchObject({ status: 400, body: { error: { code: "invalid_parameters", param: "model" } } });
    const other = new WebSocket(`${server.realtimeURL}?intent=conversation`, { ca: tls.cert, headers: { Authorization: `Bearer ${KEY}` } });
    const status = await new Promise<number | undefined>((resolve) => other.once("unexpected-response", (_request, response) => resolve(response.statusCode)));
    expect(status).toBe(400);
  });

  it("answers every hostile event with an error event (event_id echoed) and goes on transcribing", { timeout: speechTimeout({ decodes: 1 }) }, async () => {
    const { seed, cases } = fuzzSettings(40);
    const notJson = hostileString.filter((text) => {
      try {
        JSON.parse(text);
        return false;
      } catch {
        return true;
      }
    });
    const notBase64 = hostileString.filter((text) => text !== "" && (/[^A-Za-z0-9+/=]/.test(text) || text.length % 4 !== 0));
    const notSilence = hostileNumber.filter((value) => !(Number.isInteger(value) && value >= 100 && value <= 10_000));
    const known = ["session.update", "transcription_session.update", "input_audio_buffer.append", "input_audio_buffer.commit", "input_audio_buffer.clear"];
    const notAString = fc.oneof(fc.integer(), fc.constant(null), fc.boolean(), fc.array(fc.integer(), { maxLength: 3 }), fc.object({ maxDepth: 1 }));
    const hostileEvent: fc.Arbitrary<string> = fc.oneof(
      notJson,
      fc.constantFrom("null", "1", "[]", '"input_audio_buffer.commit"', "{}", '{"type":null}'),
      hostileString.filter((type) => !known.includes(type)).map((type) => JSON.stringify({ type, event_id: "hostile" })),
      notBase64.map((audio) => JSON.stringify({ type: "input_audio_buffer.append", audio, event_id: "hostile" })),
      notAString.map((audio) => JSON.stringify({ type: "input_audio_buffer.append", audio, event_id: "hostile" })),
      fc.constant(JSON.stringify({ type: "input_audio_buffer.append", audio: "AAAA".repeat(400_000), event_id: "hostile" })), // 1.6 MB: over the append limit
      notAString.map((session) => JSON.stringify({ type: "session.update", session, event_id: "hostile" })),
      notSilence.map((value) => JSON.stringify({ type: "session.update", session: { type: "transcription", audio: { input: { turn_detection: { type: "server_vad", silence_duration_ms: value } } } }, event_id: "hostile" })),
      hostileString.filter((language) => language !== "" && !/^[a-z]{2}$/.test(language)).map((language) => JSON.stringify({ type: "transcription_session.update", session: { input_audio_transcription: { language } }, event_id: "hostile" })),
      fc.constantFrom(
        JSON.stringify({ type: "session.update", session: { type: "realtime" }, event_id: "hostile" }),
        JSON.stringify({ type: "session.update", session: { type: "transcription", audio: { input: { format: { type: "audio/pcmu" } } } }, event_id: "hostile" }),
        JSON.stringify({ type: "transcription_session.update", session: { input_audio_format: "g711_ulaw" }, event_id: "hostile" }),
        JSON.stringify({ type: "transcription_session.update", session: { turn_detection: { type: "semantic_vad" } }, event_id: "hostile" }),
        JSON.stringify({ type: "transcription_session.update", session: { input_audio_transcription: { model: "gpt-4o-transcribe" } }, event_id: "hostile" }),
      ),
    );
    const frames = fc.sample(hostileEvent, { seed, numRuns: cases });

    const { rt, events, closed, waitFor } = await connect(server);
    await waitFor("session.created");
    let settled = false;
    void closed.then(() => (settled = true));
    for (const frame of frames) rt.socket.send(frame);
    rt.socket.send(Buffer.from([1, 2, 3])); // a binary frame: audio goes in append events
    const errors = await waitFor("error", frames.length + 1);
    expect(errors).toHaveLength(frames.length + 1);
    for (const { error } of errors) expect(error).toMatchObject({ type: "invalid_request_error", code: "invalid_parameters", message: expect.any(String) });
    expect(errors.filter(({ error }) => error.event_id === "hostile").length).toBeGreaterThan(0);

    // The session still works.
    expect(settled).toBe(false);
    append(rt, Buffer.concat([speechPcm24k(1.5), silence(1)]));
    const [completed] = await waitFor("conversation.item.input_audio_transcription.completed");
    expect(completed!.transcript).toEqual(expect.any(String));
    expect(events.filter((event) => event.type === "error")).toHaveLength(frames.length + 1);
    rt.close();
    await closed;
  });
});
