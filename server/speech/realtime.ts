/**
 * Real-time transcription over a WebSocket (`/v1/websocket`); the protocol is in docs/realtime.md.
 * Audio arrives as binary frames; an energy voice-activity detector cuts it into utterances; while an
 * utterance grows, partial transcripts are sent (stabilised by agreement between consecutive passes);
 * when it ends (silence, or 28 s), its final segment is sent with start/end and words.
 */
import crypto from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import { AppError, openaiErrorBody } from "../errors";
import { registerUpgradeRoute } from "../http/upgrade-routes";
import { logger } from "../logger";
import { SAMPLE_RATE } from "./audio";
import type { SpeechModelId } from "./config";
import { CancelledJobError } from "./engine-pool";
import type { TranscribeResult } from "./engine-protocol";
import type { Word } from "./formats";
import { isWhisperLanguage, languageName } from "./languages";
import { resolveRequestedModel } from "./models";
import { retryAfterOf } from "./rate-limits";
import type { SpeechService } from "./service";

export const REALTIME_PATH = "/v1/websocket";

const FRAME_SAMPLES = SAMPLE_RATE / 50; // 20 ms
/** RMS above this (-40 dBFS) is voice. */
const SPEECH_RMS = 0.01;
/** This much silence ends an utterance (OpenAI's server VAD default). */
const ENDPOINT_SILENCE_MS = 500;
/** No partial pass is started once the speaker has been silent this long: the final is near. */
const PARTIAL_QUIET_MS = 200;
/** Audio kept from before the voice started, and after it stopped. */
const PADDING_MS = 200;
/** An utterance is cut here even without a pause: Whisper sees 30 s at a time. */
const MAX_UTTERANCE_SECONDS = 28;
/** A partial pass is run each time the utterance has grown by this much. */
const PARTIAL_EVERY_MS = 1000;
/** Utterances waiting for their final pass; beyond this the client is sending faster than we decode. */
const MAX_BUFFERED_SECONDS = 120;
const MAX_FRAME_BYTES = 1024 * 1024;

type Encoding = "pcm_s16le" | "pcm_f32le";

interface SessionOptions {
  model: SpeechModelId;
  language?: string;
  task: "transcribe" | "translate";
  encoding: Encoding;
  temperature: number;
}

function handshakeOptions(service: SpeechService, url: URL): SessionOptions {
  const query = (name: string) => url.searchParams.get(name) ?? undefined;
  const model = resolveRequestedModel(service.config, query("model"));
  const language = query("language");
  if (language !== undefined && !(/^[a-z]{2}$/.test(language) && isWhisperLanguage(language))) {
    throw new AppError("invalid", "language must be a two-letter ISO-639-1 code that Whisper knows.", "language");
  }
  const task = query("task") ?? "transcribe";
  if (task !== "transcribe" && task !== "translate") throw new AppError("invalid", "task must be transcribe or translate.", "task");
  const encoding = query("encoding") ?? "pcm_s16le";
  if (encoding !== "pcm_s16le" && encoding !== "pcm_f32le") throw new AppError("invalid", "encoding must be pcm_s16le or pcm_f32le.", "encoding");
  const sampleRate = query("sample_rate");
  if (sampleRate !== undefined && sampleRate !== String(SAMPLE_RATE)) {
    throw new AppError("invalid", `sample_rate must be ${SAMPLE_RATE}: send 16 kHz mono audio.`, "sample_rate");
  }
  const temperatureText = query("temperature");
  const temperature = temperatureText === undefined ? 0 : Number(temperatureText);
  if (!(temperature >= 0 && temperature <= 1)) throw new AppError("invalid", "temperature must be a number from 0 to 1.", "temperature");
  return { model, language, task, encoding, temperature };
}

/** The handshake's refusal: an HTTP answer with the contract's error body, before any upgrade. */
function refuse(socket: Duplex, error: unknown, headers: Record<string, string> = {}) {
  const { status, body } = openaiErrorBody(error);
  const json = JSON.stringify(body);
  const reason = { 400: "Bad Request", 401: "Unauthorized", 429: "Too Many Requests", 500: "Internal Server Error" }[status] ?? "Error";
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n${extra}Connection: close\r\n\r\n${json}`,
  );
}

const liveSessions = new Set<RealtimeSession>();

/** Ends every real-time session of the process (server shutdown): each flushes its last final and closes. */
export function closeRealtimeSessions() {
  for (const session of liveSessions) session.shutdown();
}

/** Registers `/v1/websocket` on the custom server's upgrade routes, for the process's speech service. */
export function registerRealtimeRoute(service: SpeechService) {
  registerUpgradeRoute(REALTIME_PATH, createRealtimeUpgradeHandler(service));
}

export function createRealtimeUpgradeHandler(service: SpeechService) {
  const server = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  const sessions = new Set<RealtimeSession>();

  const handler = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    void (async () => {
      try {
        const url = new URL(request.url ?? "/", "http://localhost");
        const header = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")?.[1];
        const key = header ?? url.searchParams.get("api_key") ?? undefined;
        const keyId = key ? await service.authenticate(key) : null;
        if (!keyId) throw new AppError("unauthenticated", "Incorrect or missing API key (Authorization: Bearer, or ?api_key=).", undefined, "invalid_api_key");
        const options = handshakeOptions(service, url);
        if (sessions.size >= service.config.wsMaxSessions) {
          throw new AppError("rate_limited", `Too many real-time sessions (at most ${service.config.wsMaxSessions}). Retry later.`, undefined, "rate_limit_exceeded");
        }
        // A session is one request of the key; its audio counts, frame by frame, against the key's
        // audio seconds per minute as the HTTP endpoints' does.
        service.rateLimiter.takeRequest(keyId);
        server.handleUpgrade(request, socket, head, (ws) => {
          const session = new RealtimeSession(service, ws, options, keyId);
          sessions.add(session);
          liveSessions.add(session);
          ws.once("close", () => {
            sessions.delete(session);
            liveSessions.delete(session);
          });
        });
      } catch (error) {
        refuse(socket, error, (error as AppError).code === "rate_limited" ? { "Retry-After": String(retryAfterOf(error) ?? 5) } : {});
      }
    })();
  };
  return Object.assign(handler, {
    /** Ends every session (server shutdown). */
    closeAll() {
      for (const session of sessions) session.shutdown();
    },
    get sessionCount() {
      return sessions.size;
    },
  });
}

interface Utterance {
  id: number;
  startSample: number;
  chunks: Float32Array[];
  length: number;
  sinceLastPartial: number;
  /** Stabilised words of the partial text: they never change within the utterance. */
  stableWords: string[];
  previousWords: string[] | null;
}

const joinChunks = (chunks: Float32Array[], length: number) => {
  const samples = new Float32Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    samples.set(chunk, offset);
    offset += chunk.length;
  }
  return samples;
};

/**
 * LocalAgreement-2: the words on which this pass and the previous one agree (their common prefix)
 * become stable, and stable words never change again; the rest of this pass is the unstable tail.
 */
export function stabilisePartial(stableWords: readonly string[], previousWords: readonly string[] | null, words: readonly string[]) {
  let stable = [...stableWords];
  if (previousWords) {
    let agreed = 0;
    while (agreed < words.length && agreed < previousWords.length && words[agreed] === previousWords[agreed]) agreed++;
    if (agreed > stable.length) stable = [...stable, ...words.slice(stable.length, agreed)];
  }
  // The unstable tail is what this pass says after the stable words; where it disagrees with them
  // inside the stable span, the stable words win (they were already shown as settled).
  return { stable, unstable: words.slice(stable.length) };
}

const roundTime = (seconds: number) => Math.round(seconds * 100) / 100;
const wordsOfText = (text: string) => text.trim().split(/\s+/).filter(Boolean);

class RealtimeSession {
  private readonly id = crypto.randomUUID();
  private readonly abort = new AbortController();
  private language: string | undefined;
  private remainder = Buffer.alloc(0);
  private totalSamples = 0;
  private frame = new Float32Array(FRAME_SAMPLES);
  private frameFill = 0;
  /** Recent silent frames, kept as the utterance's lead-in. */
  private preRoll: Float32Array[] = [];
  private utterance: Utterance | null = null;
  private silentMs = 0;
  private nextUtteranceId = 0;
  private readonly finals: Utterance[] = [];
  /** Cancels the partial pass in flight: once its utterance has ended, only the final matters. */
  private partialAbort: AbortController | null = null;
  private working = false;
  private ending: string | null = null;
  private closed = false;
  private ready = false;
  private readonly wordTimestamps: Promise<boolean>;

  constructor(
    private readonly service: SpeechService,
    private readonly ws: WebSocket,
    private readonly options: SessionOptions,
    private readonly keyId: string,
  ) {
    this.language = options.language;
    const source = service.config.modelSources[options.model];
    // Loading the model (if needed) is the first job; `ready` says it is done. Audio that arrives
    // before is kept and transcribed afterwards.
    this.wordTimestamps = service.pool.supportsWordTimestamps(options.model, source, this.abort.signal);
    this.wordTimestamps.then(
      () => {
        this.ready = true;
        this.send({
          type: "ready",
          session_id: this.id,
          model: options.model,
          language: options.language ?? null,
          task: options.task,
          encoding: options.encoding,
          sample_rate: SAMPLE_RATE,
        });
        this.pump();
      },
      (error: unknown) => {
        if (error instanceof CancelledJobError) return;
        this.sendError(error);
        this.closed = true;
        this.ws.close(1011, "model unavailable");
      },
    );
    ws.on("message", (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    ws.on("close", () => {
      this.closed = true;
      this.abort.abort();
    });
    ws.on("error", () => this.abort.abort());
  }

  private send(message: object) {
    if (!this.closed && this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(message));
  }

  private sendError(error: unknown) {
    this.send({ type: "error", ...openaiErrorBody(error).body });
  }

  shutdown() {
    this.finish("server_shutdown");
  }

  private onMessage(data: Buffer, isBinary: boolean) {
    if (this.ending) return;
    if (!isBinary) {
      let message: { type?: unknown };
      try {
        message = JSON.parse(data.toString("utf8"));
      } catch {
        this.sendError(new AppError("invalid", "Text messages must be JSON, e.g. {\"type\":\"end\"}.", "message"));
        return;
      }
      if (message.type === "end") this.finish("end");
      else this.sendError(new AppError("invalid", `Unknown message type ${JSON.stringify(message.type)}; the client sends audio frames and {"type":"end"}.`, "type"));
      return;
    }
    this.acceptAudio(data);
  }

  private acceptAudio(data: Buffer) {
    const bytesPerSample = this.options.encoding === "pcm_s16le" ? 2 : 4;
    const bytes = this.remainder.length ? Buffer.concat([this.remainder, data]) : data;
    const count = Math.floor(bytes.length / bytesPerSample);
    this.remainder = Buffer.from(bytes.subarray(count * bytesPerSample));
    for (let i = 0; i < count; i++) {
      this.frame[this.frameFill++] = bytesPerSample === 2 ? bytes.readInt16LE(i * 2) / 32768 : bytes.readFloatLE(i * 4);
      if (this.frameFill === FRAME_SAMPLES) {
        this.onFrame(this.frame);
        this.frame = new Float32Array(FRAME_SAMPLES);
        this.frameFill = 0;
        if (this.ending) return;
      }
    }
  }

  private onFrame(frame: Float32Array) {
    try {
      this.service.rateLimiter.takeAudio(this.keyId, frame.length / SAMPLE_RATE);
    } catch (error) {
      this.sendError(error);
      this.finish("rate_limited");
      return;
    }
    this.totalSamples += frame.length;
    if (this.totalSamples > this.service.config.wsMaxSessionSeconds * SAMPLE_RATE) {
      this.sendError(new AppError("invalid", `The session reached its maximum length of ${this.service.config.wsMaxSessionSeconds} s of audio.`, "audio"));
      this.finish("session_too_long");
      return;
    }
    let energy = 0;
    for (let i = 0; i < frame.length; i++) energy += frame[i]! * frame[i]!;
    const voiced = Math.sqrt(energy / frame.length) > SPEECH_RMS;
    const frameMs = (frame.length / SAMPLE_RATE) * 1000;

    if (!this.utterance) {
      if (!voiced) {
        this.preRoll.push(frame);
        if (this.preRoll.length * frameMs > PADDING_MS) this.preRoll.shift();
        return;
      }
      const lead = this.preRoll.reduce((sum, chunk) => sum + chunk.length, 0);
      this.utterance = {
        id: this.nextUtteranceId++,
        startSample: this.totalSamples - frame.length - lead,
        chunks: [...this.preRoll],
        length: lead,
        sinceLastPartial: 0,
        stableWords: [],
        previousWords: null,
      };
      this.preRoll = [];
      this.silentMs = 0;
    }
    const utterance = this.utterance;
    utterance.chunks.push(frame);
    utterance.length += frame.length;
    utterance.sinceLastPartial += frame.length;
    this.silentMs = voiced ? 0 : this.silentMs + frameMs;
    if (this.silentMs >= ENDPOINT_SILENCE_MS || utterance.length >= MAX_UTTERANCE_SECONDS * SAMPLE_RATE) {
      // Keep PADDING_MS of the trailing silence.
      const trimFrames = Math.max(0, Math.floor((this.silentMs - PADDING_MS) / frameMs));
      utterance.chunks.splice(utterance.chunks.length - trimFrames, trimFrames);
      utterance.length -= trimFrames * FRAME_SAMPLES;
      this.endUtterance();
    }
    this.pump();
  }

  private endUtterance() {
    if (!this.utterance) return;
    this.partialAbort?.abort();
    this.finals.push(this.utterance);
    this.utterance = null;
    this.silentMs = 0;
    const buffered = this.finals.reduce((sum, utterance) => sum + utterance.length, 0) / SAMPLE_RATE;
    if (buffered > MAX_BUFFERED_SECONDS) {
      this.sendError(new AppError("rate_limited", `Too much audio is waiting to be transcribed (over ${MAX_BUFFERED_SECONDS} s): send audio no faster than real time.`, undefined, "rate_limit_exceeded"));
      this.finish("buffer_overflow");
    }
  }

  /** Runs the next job: finals first, in order; else a partial of the growing utterance. */
  private pump() {
    if (this.working || this.closed || !this.ready) return;
    const final = this.finals.shift();
    if (final) {
      this.working = true;
      void this.runFinal(final).finally(() => {
        this.working = false;
        this.pump();
      });
      return;
    }
    const utterance = this.utterance;
    if (utterance && !this.ending && this.silentMs < PARTIAL_QUIET_MS && utterance.sinceLastPartial >= (PARTIAL_EVERY_MS / 1000) * SAMPLE_RATE) {
      utterance.sinceLastPartial = 0;
      this.working = true;
      void this.runPartial(utterance).finally(() => {
        this.working = false;
        this.pump();
      });
      return;
    }
    if (this.ending && !this.utterance && this.finals.length === 0) this.close(this.ending);
  }

  private transcribe(samples: Float32Array, wordTimestamps: boolean, timestamps: boolean, signal = this.abort.signal): Promise<TranscribeResult> {
    return this.service.pool.transcribe(
      {
        model: this.options.model,
        source: this.service.config.modelSources[this.options.model],
        samples,
        task: this.options.task,
        language: this.language,
        temperature: this.options.temperature,
        wordTimestamps,
        timestamps,
      },
      signal,
    );
  }

  private noteLanguage(code: string) {
    if (this.language) return;
    this.language = code;
    this.send({ type: "language", language: code, name: languageName(code) });
  }

  private async runPartial(utterance: Utterance) {
    const partialAbort = new AbortController();
    this.partialAbort = partialAbort;
    try {
      const signal = AbortSignal.any([this.abort.signal, partialAbort.signal]);
      const result = await this.transcribe(joinChunks(utterance.chunks, utterance.length), false, false, signal);
      if (this.utterance !== utterance) return; // ended meanwhile: its final is what counts
      this.noteLanguage(result.languageCode);
      const words = wordsOfText(result.text);
      const { stable, unstable } = stabilisePartial(utterance.stableWords, utterance.previousWords, words);
      utterance.stableWords = stable;
      utterance.previousWords = words;
      this.send({
        type: "partial",
        segment_id: utterance.id,
        start: roundTime(utterance.startSample / SAMPLE_RATE),
        text: [...stable, ...unstable].join(" "),
        stable: stable.join(" "),
        unstable: unstable.join(" "),
      });
    } catch (error) {
      // A partial is best effort: a busy engine (429) just means no partial this time.
      if (!(error instanceof CancelledJobError) && !(error instanceof AppError && error.code === "rate_limited")) this.sendError(error);
    } finally {
      if (this.partialAbort === partialAbort) this.partialAbort = null;
    }
  }

  private async runFinal(utterance: Utterance) {
    const offset = utterance.startSample / SAMPLE_RATE;
    const duration = utterance.length / SAMPLE_RATE;
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await this.transcribe(joinChunks(utterance.chunks, utterance.length), await this.wordTimestamps.catch(() => false), true);
        this.noteLanguage(result.languageCode);
        const shift = (word: Word): Word => ({
          ...word,
          start: roundTime(offset + word.start),
          end: roundTime(offset + word.end),
          probability: word.probability === undefined ? undefined : Math.round(word.probability * 1e4) / 1e4,
        });
        this.send({
          type: "final",
          segment: {
            id: utterance.id,
            start: roundTime(offset),
            end: roundTime(offset + duration),
            text: result.text,
            words: result.words.map(shift),
            avg_logprob: result.segments[0]?.avg_logprob ?? null,
            no_speech_prob: result.segments[0]?.no_speech_prob ?? null,
          },
        });
        return;
      } catch (error) {
        if (error instanceof CancelledJobError) return;
        if (error instanceof AppError && error.code === "rate_limited" && attempt < 20) {
          await new Promise((resolve) => setTimeout(resolve, 250)); // the engine is busy: a final is never dropped for that
          continue;
        }
        this.sendError(error);
        return;
      }
    }
  }

  /** Stops taking audio, flushes the current utterance, and closes once every final is sent. */
  private finish(reason: string) {
    if (this.ending) return;
    this.ending = reason;
    if (this.frameFill > 0 && this.utterance) {
      this.utterance.chunks.push(this.frame.slice(0, this.frameFill));
      this.utterance.length += this.frameFill;
    }
    this.endUtterance();
    this.pump();
  }

  private close(reason: string) {
    this.send({ type: "closed", reason, session_id: this.id, audio_seconds: Math.round((this.totalSamples / SAMPLE_RATE) * 100) / 100, segments: this.nextUtteranceId });
    this.ws.close(1000, reason);
    logger.debug(`realtime session ${this.id} closed: ${reason}`);
  }
}
