/**
 * /v1/realtime speaks OpenAI's realtime transcription protocol: the real `openai` client
 * (OpenAIRealtimeWS, over wss with a test certificate) transcribes against Markbook; each item's events
 * come in OpenAI's order with one item id, its deltas (live ones included) add up to its transcript;
 * hostile events each get an `error` event and the session goes on.
 */
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import OpenAI from "openai";
import { OpenAIRealtimeWS } from "openai/realtime/ws";
import type { RealtimeServerEvent } from "openai/resources/realtime/realtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { AppError } from "../server/errors";
import type { TranscribeRequest, TranscribeResult } from "../server/speech/engine-protocol";
import { completeTranscript } from "../server/speech/realtime/openai-transcript";
import { Resampler24kTo16k } from "../server/speech/resample";
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

/** Appends in events of `chunkMs`, `pace` times faster than real time (a microphone is 1). */
async function appendPaced(rt: OpenAIRealtimeWS, pcm: Buffer, chunkMs = 100, pace = 1) {
  const bytes = Math.round((chunkMs / 1000) * 24_000) * 2;
  const started = Date.now();
  for (let offset = 0, index = 0; offset < pcm.length; offset += bytes, index++) {
    rt.send({ type: "input_audio_buffer.append", audio: pcm.subarray(offset, offset + bytes).toString("base64") });
    await sleep(Math.max(0, started + ((index + 1) * chunkMs) / pace - Date.now()));
  }
}

const silence = (seconds: number) => Buffer.alloc(Math.round(seconds * 24_000) * 2);

const DELTA = "conversation.item.input_audio_transcription.delta";
const COMPLETED = "conversation.item.input_audio_transcription.completed";
const itemIdOf = (event: ServerEvent) => {
  const { item_id: itemId, item } = event as { item_id?: unknown; item?: { id?: unknown } };
  return typeof itemId === "string" ? itemId : typeof item?.id === "string" ? item.id : undefined;
};

/**
 * What holds for every item of a GA session, whatever the audio and the model say: its events in
 * OpenAI's order under one item id (deltas anywhere before `completed`: the live ones come while the
 * utterance is spoken), `conversation.item.added` right after `committed`, the items chained by
 * `previous_item_id`, and the deltas adding up to the transcript `completed` and `conversation.item.done`
 * carry. Returns each item's deltas and how many came before its commit.
 */
function checkItems(events: ServerEvent[], { vad }: { vad: boolean }) {
  const committed = events.flatMap((event, position) => (event.type === "input_audio_buffer.committed" ? [{ event: event as EventOf<"input_audio_buffer.committed">, position }] : []));
  let previous: string | null = null;
  return committed.map(({ event: commit, position: commitPosition }) => {
    const itemId = commit.item_id;
    const own = events.flatMap((event, position) => (itemIdOf(event) === itemId ? [{ event, position }] : []));
    const steps = own.map(({ event }) => event.type).filter((type) => type !== DELTA);
    const opening = vad ? ["input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped"] : [];
    expect(steps).toEqual([...opening, "input_audio_buffer.committed", "conversation.item.added", COMPLETED, "conversation.item.done"]);
    expect(commit.previous_item_id).toBe(previous);
    expect(events[commitPosition + 1]).toEqual({
      type: "conversation.item.added",
      event_id: expect.stringMatching(/^event_/),
      previous_item_id: previous,
      item: { id: itemId, object: "realtime.item", type: "message", role: "user", status: "completed", content: [{ type: "input_audio", transcript: null }] },
    });
    const completedAt = own.find(({ event }) => event.type === COMPLETED)!;
    const completed = completedAt.event as EventOf<typeof COMPLETED>;
    const deltas = own.filter(({ event }) => event.type === DELTA);
    for (const { event, position } of deltas) {
      expect(position).toBeLessThan(completedAt.position);
      expect(event).toMatchObject({ content_index: 0, delta: expect.stringMatching(/\S/) });
    }
    const text = deltas.map(({ event }) => (event as EventOf<typeof DELTA>).delta).join("");
    expect(text).toBe(completed.transcript);
    const done = own.find(({ event }) => event.type === "conversation.item.done")!.event as EventOf<"conversation.item.done">;
    expect(done).toMatchObject({ previous_item_id: previous, item: { id: itemId, type: "message", role: "user", status: "completed", content: [{ type: "input_audio", transcript: completed.transcript }] } });
    previous = itemId;
    return { itemId, deltas: deltas.map(({ event }) => (event as EventOf<typeof DELTA>).delta), live: deltas.filter(({ position }) => position < commitPosition).length, transcript: completed.transcript };
  });
}

/** An engine answer with the given text (the scripted engine's: no decoding). */
const scriptedResult = (text: string): TranscribeResult => ({
  languageCode: "en",
  text,
  segments: [],
  words: [],
  decodes: 1,
  timings: { features: 0, encoder: 0, firstStep: 0, decode: 0, tokens: 0 },
});

describe("the completed transcript after live deltas", () => {
  it("is the final pass's text when it begins with what the deltas said", () => {
    expect(completeTranscript("", " Full marks, well explained.")).toEqual({ transcript: "Full marks, well explained.", rest: "Full marks, well explained." });
    expect(completeTranscript("Full marks,", " Full marks, well explained.")).toEqual({ transcript: "Full marks, well explained.", rest: " well explained." });
    expect(completeTranscript("Full marks, well explained.", "Full marks, well explained.")).toEqual({ transcript: "Full marks, well explained.", rest: "" });
    // A word the deltas cut short goes on in the last one.
    expect(completeTranscript("Full mark", "Full marks, well explained.")).toEqual({ transcript: "Full marks, well explained.", rest: "s, well explained." });
  });

  it("keeps the words already sent when the final pass rewrote them, and goes on after the words they align with", () => {
    expect(completeTranscript("Full mark", "Fall marks, well explained.")).toEqual({ transcript: "Full mark well explained.", rest: " well explained." });
    // Case and punctuation aside, the sent words agree.
    expect(completeTranscript("the copy is", "The copy is very clear.")).toEqual({ transcript: "the copy is very clear.", rest: " very clear." });
    // A substituted word (the → a, is → was): the final goes on after "very".
    expect(completeTranscript("the copy is very", "A copy was very clear, and well argued.").transcript).toBe("the copy is very clear, and well argued.");
    // A word the final inserted (so) is not repeated; one it dropped (very) is not sent twice.
    expect(completeTranscript("the copy is clear", "The copy is so clear and well argued.").rest).toBe(" and well argued.");
    expect(completeTranscript("the copy is very clear", "The copy is clear and well argued.").rest).toBe(" and well argued.");
    // A final that says less than the deltas did: nothing is added, nothing taken back.
    expect(completeTranscript("the copy is very clear", "The copy.")).toEqual({ transcript: "the copy is very clear", rest: "" });
    expect(completeTranscript("the copy", "")).toEqual({ transcript: "the copy", rest: "" });
  });

  it("always begins with what was sent, and adds the final's words after it", () => {
    const fuzz = fuzzSettings(200);
    const word = fc.constantFrom("the", "copy", "is", "very", "clear", "Clear.", "and", "well", "argued", "a", "was");
    fc.assert(
      fc.property(fc.array(word, { maxLength: 8 }), fc.array(word, { maxLength: 12 }), (sentWords, finalWords) => {
        const delivered = sentWords.join(" ");
        const { transcript, rest } = completeTranscript(delivered, ` ${finalWords.join(" ")}`);
        expect(transcript).toBe(delivered + rest);
        const final = finalWords.join(" ");
        if (final.startsWith(delivered)) expect(transcript).toBe(final);
        else {
          // After the words sent, a space and a suffix of the final's words.
          if (rest) expect(rest.startsWith(" ")).toBe(true);
          const restWords = rest.trim().split(" ").filter(Boolean);
          expect(finalWords.slice(finalWords.length - restWords.length)).toEqual(restWords);
        }
      }),
      { seed: fuzz.seed, numRuns: fuzz.cases },
    );
  });
});

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
  /** While set, the engine's answers: the text a test scripts for the audio a pass is given (no decoding). */
  let scripted: ((request: TranscribeRequest) => Promise<TranscribeResult>) | null = null;

  beforeAll(async () => {
    server = await startSpeechServer(testSpeechConfig({ SPEECH_WS_MAX_SESSIONS: "2", SPEECH_RATE_LIMIT_RPM: "0", SPEECH_RATE_LIMIT_AUDIO_SECONDS: "0" }), { authenticate }, {}, { tls });
    // What the engine is asked: the real pool still does the work (unless a test scripts the answers).
    const transcribe = server.service.pool.transcribe.bind(server.service.pool);
    server.service.pool.transcribe = (request, ...rest) => {
      requests.push(request);
      return scripted ? scripted(request) : transcribe(request, ...rest);
    };
  });
  afterAll(async () => {
    await server?.close();
  });

  it(
    "configures a transcription session; server VAD cuts two utterances: speech_started, speech_stopped, committed, conversation.item.added, deltas, completed, conversation.item.done",
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
      const completed = await waitFor(COMPLETED, 2);
      await waitFor("conversation.item.done", 2);

      const started = events.filter((event) => event.type === "input_audio_buffer.speech_started") as EventOf<"input_audio_buffer.speech_started">[];
      const stopped = events.filter((event) => event.type === "input_audio_buffer.speech_stopped") as EventOf<"input_audio_buffer.speech_stopped">[];
      const items = checkItems(events, { vad: true });
      expect(items).toHaveLength(2);
      for (const [index, { itemId }] of items.entries()) {
        expect(started[index]!.audio_start_ms).toBeLessThan(stopped[index]!.audio_end_ms);
        expect(completed[index]).toMatchObject({ item_id: itemId, content_index: 0, transcript: expect.any(String), usage: { type: "duration", seconds: expect.any(Number) } });
        expect(completed[index]).not.toHaveProperty("logprobs"); // not asked for
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

  it("with turn_detection null only a commit ends an utterance; clear drops the buffer; an empty commit is an error; logprobs asked for come with the completed transcript", { timeout: speechTimeout({ decodes: 3 }) }, async () => {
    const { rt, events, waitFor } = await connect(server);
    await waitFor("session.created");
    rt.send({ type: "session.update", session: { type: "transcription", include: ["item.input_audio_transcription.logprobs"], audio: { input: { turn_detection: null } } } });
    const [updated] = await waitFor("session.updated");
    expect(updated!.session).toMatchObject({ audio: { input: { turn_detection: null } }, include: ["item.input_audio_transcription.logprobs"] });

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
    await waitFor("conversation.item.done");
    expect(completed!.item_id).toBe(committed!.item_id);
    // Silence did not end anything: the one item holds the speech and the pause after it.
    expect(events.some((event) => event.type === "input_audio_buffer.speech_started" || event.type === "input_audio_buffer.speech_stopped")).toBe(false);
    expect(completed!.usage).toMatchObject({ type: "duration", seconds: expect.closeTo(3.5, 1) });
    const [item] = checkItems(events, { vad: false });
    expect(item!.itemId).toBe(committed!.item_id);
    // The final pass's text tokens: each a log-probability, its bytes, and its text from them. A delta is
    // made of partials' words, which no one pass decoded: null, as OpenAI's types allow.
    const logprobs = completed!.logprobs as { token: string; logprob: number; bytes: number[] }[];
    expect(Array.isArray(logprobs)).toBe(true);
    if (completed!.transcript) expect(logprobs.length).toBeGreaterThan(0);
    expect(requests.at(-1)?.logprobs).toBe(true); // the engine was asked for them
    for (const entry of logprobs) {
      expect(entry.logprob).toBeLessThanOrEqual(0);
      expect(entry.bytes.every((byte) => Number.isInteger(byte) && byte >= 0 && byte < 256)).toBe(true);
      expect(entry.token).toBe(new TextDecoder().decode(Uint8Array.from(entry.bytes)));
    }
    for (const delta of events.filter((event) => event.type === DELTA)) expect(delta).toHaveProperty("logprobs", null);
    expect(events.filter((event) => event.type === "error")).toHaveLength(2); // the two empty commits, nothing about include
    rt.close();
  });

  /** The beta protocol's item: conversation.item.created right after committed; it has no conversation.item.done. */
  function checkBetaItem(events: ServerEvent[]) {
    const committedAt = events.findIndex((event) => event.type === "input_audio_buffer.committed");
    const committed = events[committedAt] as EventOf<"input_audio_buffer.committed">;
    expect(events[committedAt + 1]).toEqual({
      type: "conversation.item.created",
      event_id: expect.stringMatching(/^event_/),
      previous_item_id: null,
      item: { id: committed.item_id, object: "realtime.item", type: "message", role: "user", status: "completed", content: [{ type: "input_audio", transcript: null }] },
    });
    const completed = events.find((event) => event.type === COMPLETED) as EventOf<typeof COMPLETED>;
    expect(completed.item_id).toBe(committed.item_id);
    const deltas = events.filter((event) => event.type === DELTA) as EventOf<typeof DELTA>[];
    expect(deltas.map(({ delta }) => delta).join("")).toBe(completed.transcript);
    expect(events.some((event) => event.type === "conversation.item.added" || event.type === "conversation.item.done")).toBe(false);
  }

  it("speaks the beta dialect to a beta client: transcription_session.created and .updated, the item as conversation.item.created", { timeout: speechTimeout({ decodes: 2 }) }, async () => {
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
    socket.send(JSON.stringify({ type: "input_audio_buffer.append", audio: Buffer.concat([speechPcm24k(2), silence(1.5)]).toString("base64") }));
    while (!events.some((event) => event.type === COMPLETED)) await sleep(20);
    checkBetaItem(events);
    socket.close();
  });

  it("gives the final pass's token log-probabilities in completed as the engine returned them, and none unasked", async () => {
    const logprobs = [
      { token: " Full", logprob: -0.25, bytes: [0x20, 0x46, 0x75, 0x6c, 0x6c] },
      { token: " marks.", logprob: -1.5, bytes: [0x20, 0x6d, 0x61, 0x72, 0x6b, 0x73, 0x2e] },
    ];
    scripted = (request) => Promise.resolve({ ...scriptedResult(" Full marks."), ...(request.logprobs ? { logprobs } : {}) });
    try {
      for (const asked of [true, false]) {
        const { rt, events, waitFor } = await connect(server);
        await waitFor("session.created");
        rt.send({ type: "session.update", session: { type: "transcription", ...(asked ? { include: ["item.input_audio_transcription.logprobs"] } : {}) } });
        await waitFor("session.updated");
        append(rt, Buffer.concat([speechPcm24k(2), silence(1.5)]));
        const [completed] = await waitFor(COMPLETED);
        if (asked) expect(completed!.logprobs).toEqual(logprobs);
        else expect(completed).not.toHaveProperty("logprobs");
        for (const delta of events.filter((event) => event.type === DELTA)) {
          if (asked) expect(delta).toHaveProperty("logprobs", null);
          else expect(delta).not.toHaveProperty("logprobs");
        }
        rt.close();
      }
    } finally {
      scripted = null;
    }
  });

  it("names the item as the beta protocol does once a GA client sends transcription_session.update", async () => {
    scripted = () => Promise.resolve(scriptedResult(" Full marks."));
    try {
      const { rt, events, waitFor } = await connect(server);
      await waitFor("session.created");
      rt.socket.send(JSON.stringify({ type: "transcription_session.update", session: { turn_detection: { type: "server_vad" } } }));
      await waitFor("transcription_session.updated");
      append(rt, Buffer.concat([speechPcm24k(2), silence(1.5)]));
      await waitFor(COMPLETED);
      await sleep(100); // a conversation.item.done would follow completed at once
      checkBetaItem(events);
      rt.close();
    } finally {
      scripted = null;
    }
  });

  it("sends the words two passes agree on as deltas while the utterance is spoken; a final pass that rewrites them does not take them back", { timeout: speechTimeout({ decodes: 2 }) }, async () => {
    const numbers = "one two three four five six seven eight nine ten eleven twelve".split(" ");
    // The engine's text for the audio a pass is given: a word per second up to 4 s; from 4 s on all
    // twelve, the first rewritten ("Uno"), as a model that changes its mind once it hears more.
    scripted = (request) => {
      const seconds = request.samples.length / 16_000;
      return Promise.resolve(scriptedResult(` ${(seconds < 4 ? numbers.slice(0, Math.floor(seconds)) : ["Uno", ...numbers.slice(1)]).join(" ")}`));
    };
    try {
      const { rt, events, waitFor } = await connect(server);
      await waitFor("session.created");
      await appendPaced(rt, Buffer.concat([speechPcm24k(6.5), silence(1)])); // at a microphone's pace
      await waitFor("conversation.item.done");
      const [item, ...others] = checkItems(events, { vad: true });
      expect(others).toEqual([]);
      // "one" once two passes agreed on it, before the commit.
      expect(item!.live).toBeGreaterThan(0);
      expect(item!.deltas[0]).toBe("one");
      // The final pass said "Uno two … twelve": the word already sent stands, the rest follows it.
      expect(item!.transcript).toBe(numbers.join(" "));
      rt.close();
    } finally {
      scripted = null;
    }
  });

  it("a transcription that fails: .failed for the item, then conversation.item.done without a transcript; the next item goes on", async () => {
    scripted = (request) => (request.timestamps ? Promise.reject(new AppError("internal", "The engine failed.")) : Promise.resolve(scriptedResult("")));
    try {
      const { rt, events, waitFor } = await connect(server);
      await waitFor("session.created");
      append(rt, Buffer.concat([speechPcm24k(2), silence(1.5)]));
      const [failed] = await waitFor("conversation.item.input_audio_transcription.failed");
      await waitFor("conversation.item.done");
      const [committed] = await waitFor("input_audio_buffer.committed");
      expect(failed).toMatchObject({ item_id: committed!.item_id, content_index: 0, error: { type: "server_error", code: "internal_error", message: expect.any(String) } });
      const failedAt = events.indexOf(failed!);
      expect(events[failedAt + 1]).toMatchObject({ type: "conversation.item.done", previous_item_id: null, item: { id: committed!.item_id, content: [{ type: "input_audio", transcript: null }] } });
      expect(events.some((event) => event.type === COMPLETED)).toBe(false);

      scripted = () => Promise.resolve(scriptedResult(" Full marks."));
      append(rt, Buffer.concat([speechPcm24k(2), silence(1.5)]));
      const [completed] = await waitFor(COMPLETED);
      const [, next] = await waitFor("input_audio_buffer.committed", 2);
      expect(completed).toMatchObject({ item_id: next!.item_id, transcript: "Full marks." });
      expect(next!.previous_item_id).toBe(committed!.item_id);
      rt.close();
    } finally {
      scripted = null;
    }
  });

  it(
    "whatever the audio, its pace and the model: each item's events in order under one id, deltas adding up to the transcript",
    { timeout: speechTimeout({ decodes: 40 }) },
    async () => {
      const { seed, cases } = fuzzSettings(3);
      const scenario = fc.record({
        // Speech cut from the fixture, each followed by a pause that ends it (over silence_duration_ms).
        utterances: fc.array(fc.record({ speech: fc.double({ min: 1.2, max: 6, noNaN: true }), pause: fc.double({ min: 0.8, max: 1.6, noNaN: true }) }), { minLength: 1, maxLength: 2 }),
        chunkMs: fc.integer({ min: 20, max: 250 }),
        // 1: a microphone; 2: twice as fast; Infinity: all at once, as a file would be sent.
        pace: fc.constantFrom(1, 2, Infinity),
      });
      // A model that changes its mind (the random-weight one mostly says nothing): a word per half
      // second of audio, said one way until the pass has heard 1.5 s past it, then another; the final
      // pass (and the early one, in a pause) also drops the second word.
      const firm = ["Question", "three.", "Full", "marks,", "well", "explained."];
      const early = ["Questions", "tree", "Fall", "mark", "we'll", "explain"];
      const unsteady = (request: TranscribeRequest) => {
        const heard = request.samples.length;
        const words = Array.from({ length: Math.floor(heard / 8000) }, (_, i) => (heard >= (i + 3) * 8000 ? firm : early)[i % firm.length]!);
        if (request.timestamps && words.length > 2) words.splice(1, 1);
        return Promise.resolve(scriptedResult(` ${words.join(" ")}`));
      };
      let unsteadyLive = 0;
      let spokenLong = false;
      for (const { utterances, chunkMs, pace } of fc.sample(scenario, { seed, numRuns: cases })) {
        spokenLong ||= pace !== Infinity && utterances.some(({ speech }) => speech >= 3.5);
        for (const engine of [null, unsteady]) {
          scripted = engine;
          try {
            const { rt, events, closed, waitFor } = await connect(server);
            await waitFor("session.created");
            await appendPaced(rt, Buffer.concat(utterances.flatMap(({ speech, pause }) => [speechPcm24k(speech), silence(pause)])), chunkMs, pace);
            // Behind the audio: every utterance has ended in its pause, so there is nothing left to commit.
            rt.send({ type: "input_audio_buffer.commit", event_id: "barrier" });
            const [barrier] = await waitFor("error");
            expect(barrier!.error).toMatchObject({ code: "input_audio_buffer_commit_empty", event_id: "barrier" });
            const committed = events.filter((event) => event.type === "input_audio_buffer.committed").length;
            expect(committed).toBeGreaterThanOrEqual(utterances.length);
            await waitFor("conversation.item.done", committed);
            const items = checkItems(events, { vad: true });
            expect(items).toHaveLength(committed);
            expect(events.filter((event) => event.type === "error")).toHaveLength(1);
            if (engine) unsteadyLive += items.reduce((sum, { live }) => sum + live, 0);
            rt.close();
            await closed;
          } finally {
            scripted = null;
          }
        }
      }
      // Fed at a speaking pace, the unsteady model's agreed words came live (so its rewrites were met).
      if (spokenLong) expect(unsteadyLive).toBeGreaterThan(0);
    },
  );

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
