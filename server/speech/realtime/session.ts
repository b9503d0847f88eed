/**
 * Real-time transcription over a WebSocket; the protocols are in docs/realtime.md. One session core
 * (`RealtimeSession`: audio framing, rate-limit accounting, endpointing, the engine queue, heartbeat,
 * backpressure, limits) speaks two protocols (`RealtimeProtocol`): Markbook's dictation socket
 * (`/v1/websocket`, below: binary PCM frames, partials and finals) and OpenAI's realtime transcription
 * (`/v1/realtime`, openai-realtime.ts). An endpointer (vad/endpointer.ts: the Silero VAD) cuts the
 * audio into utterances; while one grows, partial passes run (stabilised by agreement between
 * consecutive passes); when it ends (silence, a commit, or 28 s), its final pass runs. The final's pass
 * may start early, in a pause: if the speaker does not resume, it is the final.
 */
import crypto from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import { z } from "zod";
import { AppError, openaiErrorBody } from "../../errors";
import { registerUpgradeRoute } from "../../http/upgrade-routes";
import { logger } from "../../logger";
import { SAMPLE_RATE } from "../audio";
import { CancelledJobError } from "../engine-pool";
import type { SpeechModelId } from "../config";
import type { TranscribeResult } from "../engine-protocol";
import type { Word } from "../formats";
import { languageName } from "../languages";
import { resolveRequestedModel } from "../models";
import { OPENAI_REALTIME_PATH, openaiRealtimeProtocol } from "./openai";
import { parseSpeechOptions, realtimeOptions } from "../options";
import { retryAfterOf } from "../rate-limits";
import type { SpeechService } from "../service";
import { type Endpointer, type EndpointingMethod, SOCKET_VAD, createEndpointer } from "../vad/endpointer";
import { END_PADDING_MS } from "../vad/regions";

export const REALTIME_PATH = "/v1/websocket";

export const FRAME_SAMPLES = SAMPLE_RATE / 50; // 20 ms
/** No partial pass is started once the speaker has been silent this long: the final is near. */
const PARTIAL_QUIET_MS = 200;
/** An utterance is cut here even without a pause: Whisper sees 30 s at a time. */
const MAX_UTTERANCE_SECONDS = 28;
/** A partial pass is run each time the utterance has grown by this much. */
const PARTIAL_EVERY_MS = 1000;
/** Utterances waiting for their final pass; beyond this the client is sending faster than we decode. */
const MAX_BUFFERED_SECONDS = 120;
const MAX_FRAME_BYTES = 1024 * 1024;
/**
 * A session counts its audio against the key's budget (in the database) before processing it, this much
 * at a time: one take per second of audio, and the frames of that second wait for nothing. A session is
 * thus charged its audio rounded up to the whole second.
 */
const AUDIO_TAKE_SAMPLES = SAMPLE_RATE;

/** How often an idle-looking client is pinged; one that has not answered the previous ping by then is gone. */
const HEARTBEAT_MS = 30_000;
/** Messages the client has not read yet; past this it is not reading at all, and the session ends. */
const MAX_UNREAD_BYTES = 4 * 1024 * 1024;

/** How the server's VAD ends an utterance; null in a session's settings: only a commit does. */
export interface TurnDetection {
  /** This much silence ends an utterance. */
  silenceMs: number;
  /** Audio kept from before the voice started (after it stops, END_PADDING_MS or what the early final pass saw). */
  paddingMs: number;
  /** OpenAI's server_vad threshold (0…1): the VAD's speech probability. */
  threshold: number;
}

/** What a session transcribes with; a protocol may change it while the session runs (OpenAI's session.update). */
export interface SessionSettings {
  model: SpeechModelId;
  /** ISO code; absent: detected on the first pass. */
  language: string | undefined;
  task: "transcribe" | "translate";
  temperature: number;
  prompt: string | undefined;
  turnDetection: TurnDetection | null;
  /** Partial passes while an utterance grows (the dictation socket's `partial`). */
  partials: boolean;
  /** Word timings in the final pass, when the model has them. */
  words: boolean;
  /** Each text token's log-probability in the passes' results (the OpenAI protocol's `include`). */
  logprobs: boolean;
  /** How turn detection hears speech: the Silero VAD; "energy", the gate it replaced, for the benchmark only. */
  endpointing?: EndpointingMethod;
}

/** What the session core reports; each protocol renders it as its own messages. */
export type SessionEvent =
  | { type: "opened" }
  | { type: "ready" }
  | { type: "language"; code: string }
  | { type: "speech_started"; utterance: Utterance }
  | { type: "speech_stopped"; utterance: Utterance }
  | { type: "committed"; utterance: Utterance }
  | { type: "cleared" }
  | { type: "partial"; utterance: Utterance; stable: string[]; unstable: string[] }
  | { type: "final"; utterance: Utterance; result: TranscribeResult }
  /** `utterance`: its final pass failed. `eventId`: the client event at fault. */
  | { type: "error"; error: unknown; eventId?: string; utterance?: Utterance }
  | { type: "closed"; reason: string; audioSeconds: number; segments: number };

/** What a protocol may ask of its session. */
export interface SessionControls {
  readonly id: string;
  readonly settings: SessionSettings;
  readonly service: SpeechService;
  /** 16 kHz mono samples in −1…1, any length. */
  acceptAudio(samples: Float32Array): void;
  /** Ends the utterance being spoken now (or every sample since the last one, without turn detection). */
  commit(eventId?: string): void;
  /** Drops the audio not committed yet. */
  clear(): void;
  /** Stops taking audio, transcribes what was received, and closes. */
  end(): void;
  /** Changes the settings for the passes from now on. */
  configure(settings: Partial<SessionSettings>): void;
  sendError(error: unknown, eventId?: string): void;
  /** Sends a message of the protocol's own (an answer to the client's event). */
  reply(message: object): void;
}

/** One protocol's connection: it reads the client's frames and renders the core's events. */
export interface ProtocolConnection {
  onMessage(data: Buffer, isBinary: boolean, session: SessionControls): void;
  render(event: SessionEvent, session: SessionControls): object[];
}

/** A WebSocket protocol served on one path by the shared session core. */
export interface RealtimeProtocol {
  path: string;
  /** The biggest frame (or fragmented message): a bigger one closes the socket with 1009 before it is buffered. */
  maxPayload: number;
  /** The handshake's settings; a bad value throws (a 400 before the upgrade). */
  handshake(service: SpeechService, url: URL, request: IncomingMessage): SessionSettings;
  /** The subprotocol to answer among those offered (a browser fails a handshake that answers none). */
  selectProtocol?(offered: Set<string>): string | false;
  connect(settings: SessionSettings, url: URL, request: IncomingMessage): ProtocolConnection;
}

/** The dictation socket's turn detection: the VAD with OpenAI's server-VAD defaults (vad/endpointer.ts). */
const DICTATION_TURN_DETECTION: TurnDetection = { silenceMs: SOCKET_VAD.silenceDurationMs, paddingMs: SOCKET_VAD.prefixPaddingMs, threshold: SOCKET_VAD.threshold };

/** The query parameters, through the same definitions as the HTTP endpoints' fields (options.ts). */
function handshakeOptions(service: SpeechService, url: URL) {
  const query = (name: string) => url.searchParams.get(name) ?? undefined;
  const { model, language, prompt, task, encoding, temperature } = parseSpeechOptions(realtimeOptions, {
    model: query("model"),
    language: query("language"),
    prompt: query("prompt"),
    task: query("task"),
    encoding: query("encoding"),
    sample_rate: query("sample_rate"),
    temperature: query("temperature"),
  });
  return { model: resolveRequestedModel(service.config, model), language, prompt, task, encoding, temperature };
}

/** Control messages the client may send (text frames); anything else gets an `error` message. */
const controlMessage = z.object({ type: z.literal("end") });

/** Markbook's dictation socket, `/v1/websocket`: binary PCM frames in; ready, partial, final, closed out. */
const dictationProtocol: RealtimeProtocol = {
  path: REALTIME_PATH,
  maxPayload: MAX_FRAME_BYTES,
  handshake(service, url) {
    const { encoding: _encoding, ...options } = handshakeOptions(service, url);
    return { ...options, turnDetection: DICTATION_TURN_DETECTION, partials: true, words: true, logprobs: false };
  },
  connect(_settings, url) {
    // Checked at the handshake already; read through the same definition (an empty value is the default).
    const { encoding } = parseSpeechOptions({ encoding: realtimeOptions.encoding }, { encoding: url.searchParams.get("encoding") ?? undefined });
    let remainder = Buffer.alloc(0);
    return {
      onMessage(data, isBinary, session) {
        if (isBinary) {
          const decoded = decodePcm(remainder.length ? Buffer.concat([remainder, data]) : data, encoding === "pcm_f32le" ? 4 : 2);
          remainder = decoded.remainder;
          session.acceptAudio(decoded.samples);
        } else onDictationControl(data.toString("utf8"), session); // `ws` already closed the socket (1007) on invalid UTF-8
      },
      render(event, session) {
        const { settings } = session;
        switch (event.type) {
          case "ready":
            return [{ type: "ready", session_id: session.id, model: settings.model, language: settings.language ?? null, task: settings.task, encoding, sample_rate: SAMPLE_RATE }];
          case "language":
            return [{ type: "language", language: event.code, name: languageName(event.code) }];
          case "partial": {
            const { utterance, stable, unstable } = event;
            return [{ type: "partial", segment_id: utterance.id, start: roundTime(utterance.startSample / SAMPLE_RATE), text: [...stable, ...unstable].join(" "), stable: stable.join(" "), unstable: unstable.join(" ") }];
          }
          case "final":
            return [{ type: "final", segment: finalSegment(event.utterance, event.result) }];
          case "error":
            return [{ type: "error", ...openaiErrorBody(event.error).body }];
          case "closed":
            return [{ type: "closed", reason: event.reason, session_id: session.id, audio_seconds: event.audioSeconds, segments: event.segments }];
          default:
            return []; // the VAD's own events are OpenAI's
        }
      },
    };
  },
};

function onDictationControl(text: string, session: SessionControls) {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    session.sendError(new AppError("invalid", 'Text messages must be JSON, e.g. {"type":"end"}.', "message"));
    return;
  }
  if (controlMessage.safeParse(message).success) {
    session.end();
    return;
  }
  const type = typeof message === "object" && message !== null && !Array.isArray(message) && Object.hasOwn(message, "type") ? (message as { type: unknown }).type : undefined;
  session.sendError(
    type === undefined
      ? new AppError("invalid", 'Text messages are JSON objects with a "type", e.g. {"type":"end"}; audio goes in binary frames.', "message")
      : new AppError("invalid", `Unknown message type ${JSON.stringify(type).slice(0, 100)}; the client sends audio frames and {"type":"end"}.`, "type"),
  );
}

/**
 * Little-endian PCM (2 bytes: s16, 4 bytes: f32) as samples in −1…1, and the bytes of a split sample.
 * A float frame may hold anything (NaN, ±Infinity, 1e38): the engine gets audio in −1…1.
 */
export function decodePcm(bytes: Buffer, bytesPerSample: 2 | 4) {
  const count = Math.floor(bytes.length / bytesPerSample);
  const samples = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    const sample = bytesPerSample === 2 ? bytes.readInt16LE(i * 2) / 32768 : bytes.readFloatLE(i * 4);
    samples[i] = Number.isFinite(sample) ? Math.max(-1, Math.min(1, sample)) : 0;
  }
  return { samples, remainder: Buffer.from(bytes.subarray(count * bytesPerSample)) };
}

/** A final pass as the dictation socket's segment: session times, words shifted, statistics rounded. */
function finalSegment(utterance: Utterance, result: TranscribeResult) {
  const offset = utterance.startSample / SAMPLE_RATE;
  const shift = (word: Word): Word => ({
    ...word,
    start: roundTime(offset + word.start),
    end: roundTime(offset + word.end),
    probability: word.probability === undefined ? undefined : Math.round(word.probability * 1e4) / 1e4,
  });
  return {
    id: utterance.id,
    start: roundTime(offset),
    end: roundTime(offset + utterance.length / SAMPLE_RATE),
    text: result.text,
    words: result.words.map(shift),
    avg_logprob: result.segments[0]?.avg_logprob ?? null,
    no_speech_prob: result.segments[0]?.no_speech_prob ?? null,
  };
}

/** The handshake's refusal: an HTTP answer with the contract's error body, before any upgrade. */
function refuse(socket: Duplex, error: unknown, headers: Record<string, string> = {}) {
  const { status, body } = openaiErrorBody(error);
  const json = JSON.stringify(body);
  const reason = { 400: "Bad Request", 401: "Unauthorized", 429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable" }[status] ?? "Error";
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n${extra}Connection: close\r\n\r\n${json}`,
  );
}

/** Services whose sessions server.ts ends at shutdown (registerRealtimeRoute). */
const routedServices = new Set<SpeechService>();

/** Ends every real-time session of the process (server shutdown): each flushes its last final and closes. */
export function closeRealtimeSessions() {
  for (const service of routedServices) for (const session of service.realtimeSessions) session.shutdown();
}

/** Registers `/v1/websocket` and `/v1/realtime` on the custom server's upgrade routes, for the process's speech service. */
export function registerRealtimeRoute(service: SpeechService) {
  routedServices.add(service);
  const heartbeat = new Heartbeat(HEARTBEAT_MS);
  registerUpgradeRoute(REALTIME_PATH, createRealtimeUpgradeHandler(service, { heartbeat }));
  registerUpgradeRoute(OPENAI_REALTIME_PATH, createRealtimeUpgradeHandler(service, { heartbeat, protocol: openaiRealtimeProtocol }));
}

/** The key: `Authorization: Bearer`, `?api_key=`, or a browser's `openai-insecure-api-key.<key>` subprotocol. */
function keyOfRequest(request: IncomingMessage, url: URL): string | undefined {
  const header = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")?.[1];
  const offered = (request.headers["sec-websocket-protocol"] ?? "").split(",").map((protocol) => protocol.trim());
  const subprotocol = offered.find((protocol) => protocol.startsWith(KEY_SUBPROTOCOL))?.slice(KEY_SUBPROTOCOL.length);
  return header ?? url.searchParams.get("api_key") ?? (subprotocol || undefined);
}
const KEY_SUBPROTOCOL = "openai-insecure-api-key.";

export function createRealtimeUpgradeHandler(
  service: SpeechService,
  {
    heartbeatMs = HEARTBEAT_MS,
    heartbeat = new Heartbeat(heartbeatMs),
    protocol = dictationProtocol,
    endpointing = "vad",
  }: { heartbeatMs?: number; heartbeat?: Heartbeat; protocol?: RealtimeProtocol; endpointing?: EndpointingMethod } = {},
) {
  const server = new WebSocketServer({
    noServer: true,
    maxPayload: protocol.maxPayload,
    handleProtocols: (offered) => protocol.selectProtocol?.(offered) ?? false,
  });
  // A handshake `ws` itself refuses (not GET, a bad Sec-WebSocket-Key or version) gets the contract's
  // 400 and error body, not ws's plain-text answer.
  server.on("wsClientError", (error, socket) => {
    if (!socket.destroyed) refuse(socket, new AppError("invalid", `The WebSocket handshake was refused: ${error.message}.`));
  });
  // The count lives on the service: the handshake's limit and /v1/health read the same set.
  const sessions = service.realtimeSessions;

  const handler = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Until `ws` takes the socket, nobody listens for its errors: a client resetting the connection
    // during the handshake must not become an uncaught 'error' event.
    const onSocketError = () => socket.destroy();
    socket.on("error", onSocketError);
    void (async () => {
      try {
        const url = new URL(request.url ?? "/", "http://localhost");
        const key = keyOfRequest(request, url);
        const keyId = key ? await service.authenticate(key) : null;
        if (!keyId) throw new AppError("unauthenticated", "Incorrect or missing API key (Authorization: Bearer, or ?api_key=).", undefined, "invalid_api_key");
        const settings = { ...protocol.handshake(service, url, request), endpointing };
        if (sessions.size >= service.config.wsMaxSessions) {
          throw new AppError("rate_limited", `Too many real-time sessions (at most ${service.config.wsMaxSessions}). Retry later.`, undefined, "rate_limit_exceeded");
        }
        // A session is one request of the key; its audio counts, frame by frame, against the key's
        // audio seconds per minute as the HTTP endpoints' does.
        await service.rateLimiter.takeRequest(keyId);
        if (socket.destroyed) return; // the client left during the checks
        server.handleUpgrade(request, socket, head, (ws) => {
          socket.off("error", onSocketError);
          openSession(service, ws, settings, protocol.connect(settings, url, request), keyId, heartbeat);
        });
      } catch (error) {
        if (socket.destroyed) return;
        const retryAfter = error instanceof AppError && error.code === "rate_limited" ? (retryAfterOf(error) ?? 5) : retryAfterOf(error);
        refuse(socket, error, retryAfter ? { "Retry-After": String(retryAfter) } : {});
      }
    })();
  };
  return Object.assign(handler, {
    /** Ends every session (server shutdown). */
    closeAll() {
      for (const session of sessions) session.shutdown();
    },
  });
}

/**
 * The one place a session is counted and released: it enters the service's set here and leaves it on
 * the socket's `close`, which `ws` emits once on every way out (close handshake, error, 1009/1007,
 * terminate, TCP reset). Nothing else adds or removes, so the count cannot leak.
 */
function openSession(service: SpeechService, ws: WebSocket, settings: SessionSettings, connection: ProtocolConnection, keyId: string, heartbeat: Heartbeat) {
  let session: RealtimeSession | null = null;
  const release = () => {
    if (session) service.realtimeSessions.delete(session);
    heartbeat.remove(ws);
  };
  ws.once("close", release);
  // Before any listener of the session: an error event without a listener would be thrown.
  ws.on("error", (error) => logger.debug(`realtime socket error: ${error.message}`));
  try {
    session = new RealtimeSession(service, ws, settings, connection, keyId);
    service.realtimeSessions.add(session);
    heartbeat.add(ws);
  } catch (error) {
    logger.error("realtime session failed to start", error);
    ws.terminate();
  }
}

/**
 * Pings every open socket each interval; a socket that did not answer the previous ping is terminated
 * (a client that vanished without closing its TCP connection would otherwise hold its session forever).
 */
class Heartbeat {
  private readonly alive = new Map<WebSocket, boolean>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly intervalMs: number) {}

  add(ws: WebSocket) {
    this.alive.set(ws, true);
    ws.on("pong", () => this.alive.set(ws, true));
    this.timer ??= setInterval(() => this.beat(), this.intervalMs).unref();
  }

  remove(ws: WebSocket) {
    this.alive.delete(ws);
    if (this.alive.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private beat() {
    for (const [ws, alive] of this.alive) {
      if (!alive) {
        logger.debug("realtime client stopped answering pings: its session ends");
        ws.terminate();
        continue;
      }
      this.alive.set(ws, false);
      if (ws.readyState === ws.OPEN) ws.ping();
    }
  }
}

export interface Utterance {
  id: number;
  startSample: number;
  chunks: Float32Array[];
  length: number;
  sinceLastPartial: number;
  /** Stabilised words of the partial text: they never change within the utterance. */
  stableWords: string[];
  previousWords: string[] | null;
  /** The final's pass started in a pause, over the first `length` samples (the final reuses it if nothing was added). */
  early: { length: number; result: Promise<TranscribeResult>; abort: AbortController } | null;
}

/** The first `length` samples of the chunks. */
const joinChunks = (chunks: Float32Array[], length: number) => {
  const samples = new Float32Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    if (offset >= length) break;
    samples.set(chunk.subarray(0, length - offset), offset);
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

class RealtimeSession implements SessionControls {
  readonly id = crypto.randomUUID();
  readonly settings: SessionSettings;
  private readonly abort = new AbortController();
  private language: string | undefined;
  private totalSamples = 0;
  private frame = new Float32Array(FRAME_SAMPLES);
  private frameFill = 0;
  /**
   * Complete frames waiting for their audio to be counted against the key's budget, and the client's
   * commits and clears between them: each runs once the audio sent before it is processed.
   */
  private readonly uncounted: (Float32Array | (() => void))[] = [];
  /** Samples counted against the budget and not yet processed. */
  private countedSamples = 0;
  private counting = false;
  /** The client ended the session while frames were still being counted: end once they are processed. */
  private endRequested = false;
  /** Recent silent frames, kept as the utterance's lead-in. */
  private preRoll: Float32Array[] = [];
  private utterance: Utterance | null = null;
  /** The endpointer of the current turn detection (a new one when the settings change it). */
  private endpointer: { turn: TurnDetection; endpointer: Endpointer } | null = null;
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
    readonly service: SpeechService,
    private readonly ws: WebSocket,
    settings: SessionSettings,
    private readonly connection: ProtocolConnection,
    private readonly keyId: string,
  ) {
    this.settings = { ...settings };
    this.language = settings.language;
    const source = service.config.modelSources[settings.model];
    // Loading the model (if needed) is the first job; `ready` says it is done. Audio that arrives
    // before is kept and transcribed afterwards.
    this.wordTimestamps = service.pool.supportsWordTimestamps(settings.model, source, this.abort.signal);
    this.wordTimestamps.then(
      () => {
        this.ready = true;
        this.emit({ type: "ready" });
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
    this.emit({ type: "opened" });
  }

  private emit(event: SessionEvent) {
    for (const message of this.connection.render(event, this)) this.send(message);
  }

  private send(message: object) {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    if (this.ws.bufferedAmount > MAX_UNREAD_BYTES) {
      // The client reads nothing we send (e.g. floods bad frames, each answered with an error).
      logger.debug(`realtime session ${this.id}: the client is not reading; the session ends`);
      this.closed = true;
      this.ws.terminate();
      return;
    }
    this.ws.send(JSON.stringify(message));
  }

  sendError(error: unknown, eventId?: string) {
    this.emit({ type: "error", error, eventId });
  }

  reply(message: object) {
    this.send(message);
  }

  shutdown() {
    this.finish("server_shutdown");
  }

  /**
   * Every frame ends here, whatever it holds: nothing it contains may throw out of the socket's event
   * (that would skip the session's release). A failure of ours ends the session with 1011.
   */
  private onMessage(data: Buffer, isBinary: boolean) {
    try {
      if (this.ending || this.endRequested) return;
      this.connection.onMessage(data, isBinary, this);
    } catch (error) {
      this.fail(error);
    }
  }

  /** An error of the server's own (a bug, not the client's input): say so, and end the session. */
  private fail(error: unknown) {
    logger.error(`realtime session ${this.id} failed`, error);
    this.sendError(new AppError("internal", "The real-time session failed on the server; open a new one."));
    this.closed = true;
    this.abort.abort();
    if (this.ws.readyState === this.ws.OPEN) this.ws.close(1011, "internal error");
    else this.ws.terminate();
  }

  end() {
    // The audio sent before the end is transcribed first.
    if (this.uncounted.length > 0) this.endRequested = true;
    else this.finish("end");
  }

  commit(eventId?: string) {
    this.enqueueControl(() => {
      if (this.utterance) {
        this.endUtterance();
        this.pump();
      } else this.sendError(new AppError("invalid", "The input audio buffer holds no speech to commit: append audio first.", undefined, "input_audio_buffer_commit_empty"), eventId);
    });
  }

  clear() {
    this.frameFill = 0;
    this.enqueueControl(() => {
      this.partialAbort?.abort();
      this.utterance = null;
      this.preRoll = [];
      this.silentMs = 0;
      this.emit({ type: "cleared" });
    });
  }

  configure(settings: Partial<SessionSettings>) {
    Object.assign(this.settings, settings);
    if ("language" in settings) this.language = settings.language;
  }

  /** Runs `control` after the audio received before it; the samples of a frame not yet full go first. */
  private enqueueControl(control: () => void) {
    if (this.ending || this.endRequested) return;
    if (this.frameFill > 0) {
      this.uncounted.push(this.frame.slice(0, this.frameFill));
      this.frameFill = 0;
    }
    this.uncounted.push(control);
    this.processCountedFrames();
  }

  acceptAudio(samples: Float32Array) {
    if (this.ending || this.endRequested) return;
    for (let i = 0; i < samples.length; i++) {
      this.frame[this.frameFill++] = samples[i]!;
      if (this.frameFill === FRAME_SAMPLES) {
        this.uncounted.push(this.frame);
        this.frame = new Float32Array(FRAME_SAMPLES);
        this.frameFill = 0;
      }
    }
    // Audio waiting for its count (the database is slow) is held too: the same bound.
    if (this.uncounted.length * FRAME_SAMPLES > MAX_BUFFERED_SECONDS * SAMPLE_RATE) {
      this.uncounted.length = 0;
      this.overflow();
      return;
    }
    this.processCountedFrames();
  }

  /** Processes the frames whose audio is counted (and the controls between them), in order; asks for the next ones to be counted. */
  private processCountedFrames() {
    while (this.uncounted.length > 0 && !this.ending) {
      const next = this.uncounted[0]!;
      if (typeof next === "function") {
        this.uncounted.shift();
        next();
        continue;
      }
      if (this.countedSamples < next.length) {
        this.countAudio();
        return;
      }
      this.countedSamples -= next.length;
      this.uncounted.shift();
      this.onFrame(next);
    }
    if (this.endRequested && this.uncounted.length === 0) this.finish("end");
  }

  /**
   * Takes the next second of audio from the key's budget, then processes the frames it covers.
   * Refused, the session ends with the error: the audio taken so far is all it transcribes.
   */
  private countAudio() {
    if (this.counting) return;
    this.counting = true;
    this.service.rateLimiter.takeAudio(this.keyId, AUDIO_TAKE_SAMPLES / SAMPLE_RATE).then(
      () => {
        this.counting = false;
        this.countedSamples += AUDIO_TAKE_SAMPLES;
        if (this.closed) return;
        try {
          this.processCountedFrames();
        } catch (error) {
          this.fail(error);
        }
      },
      (error: unknown) => {
        this.counting = false;
        this.uncounted.length = 0;
        this.sendError(error);
        this.finish(error instanceof AppError && error.code === "rate_limited" ? "rate_limited" : "unavailable");
      },
    );
  }

  private onFrame(frame: Float32Array) {
    this.totalSamples += frame.length;
    if (this.totalSamples > this.service.config.wsMaxSessionSeconds * SAMPLE_RATE) {
      this.sendError(new AppError("invalid", `The session reached its maximum length of ${this.service.config.wsMaxSessionSeconds} s of audio.`, "audio"));
      this.finish("session_too_long");
      return;
    }
    const turn = this.settings.turnDetection;
    if (!turn) {
      // No turn detection: every sample belongs to the buffer, which only a commit (or 28 s) ends.
      const utterance = (this.utterance ??= this.startUtterance(this.totalSamples - frame.length, []));
      utterance.chunks.push(frame);
      utterance.length += frame.length;
      utterance.sinceLastPartial += frame.length;
      if (utterance.length >= MAX_UTTERANCE_SECONDS * SAMPLE_RATE) this.endUtterance();
      this.pump();
      return;
    }
    if (this.endpointer?.turn !== turn) {
      const parameters = { threshold: turn.threshold, prefixPaddingMs: turn.paddingMs, silenceDurationMs: turn.silenceMs };
      this.endpointer = { turn, endpointer: createEndpointer(this.settings.endpointing, parameters) };
    }
    const step = this.endpointer.endpointer.push(frame);
    const frameMs = (frame.length / SAMPLE_RATE) * 1000;

    if (!this.utterance) {
      if (!step.speaking) {
        this.preRoll.push(frame);
        if (this.preRoll.length * frameMs > turn.paddingMs) this.preRoll.shift();
        return;
      }
      const lead = this.preRoll.reduce((sum, chunk) => sum + chunk.length, 0);
      this.utterance = this.startUtterance(this.totalSamples - frame.length - lead, this.preRoll);
      this.preRoll = [];
      this.silentMs = 0;
      this.emit({ type: "speech_started", utterance: this.utterance });
    }
    const utterance = this.utterance;
    utterance.chunks.push(frame);
    utterance.length += frame.length;
    utterance.sinceLastPartial += frame.length;
    this.silentMs = step.silentMs;
    if (step.silentMs === 0 && utterance.early) {
      // The speaker resumed: that pass is not the final but a partial, cancelled as partials are.
      this.partialAbort = utterance.early.abort;
      utterance.early = null;
    }
    // The final's pass goes first; but the utterance's first partial is let through (a speaker who pauses
    // often would otherwise see no partial at all on a busy engine).
    if (this.earlyFinalDue(utterance) && utterance.previousWords !== null) this.partialAbort?.abort();
    if (step.ended || utterance.length >= MAX_UTTERANCE_SECONDS * SAMPLE_RATE) {
      // The final keeps the trailing silence its early pass saw (that pass is then the final); else END_PADDING_MS.
      const trimFrames = utterance.early ? (utterance.length - utterance.early.length) / FRAME_SAMPLES : this.trailingSilenceFrames();
      utterance.chunks.splice(utterance.chunks.length - trimFrames, trimFrames);
      utterance.length -= trimFrames * FRAME_SAMPLES;
      this.emit({ type: "speech_stopped", utterance });
      this.endUtterance();
    }
    this.pump();
  }

  private startUtterance(startSample: number, lead: Float32Array[]): Utterance {
    return {
      id: this.nextUtteranceId++,
      startSample,
      chunks: [...lead],
      length: lead.reduce((sum, chunk) => sum + chunk.length, 0),
      sinceLastPartial: 0,
      stableWords: [],
      previousWords: null,
      early: null,
    };
  }

  /** Frames of trailing silence beyond the END_PADDING_MS an utterance keeps. */
  private trailingSilenceFrames() {
    return Math.max(0, Math.floor((this.silentMs - END_PADDING_MS) / ((FRAME_SAMPLES / SAMPLE_RATE) * 1000)));
  }

  /** The speaker has paused long enough for the final's pass to start before the utterance ends. */
  private earlyFinalDue(utterance: Utterance) {
    const after = this.settings.turnDetection ? this.endpointer?.endpointer.earlyFinalAfterMs : null;
    return after !== null && after !== undefined && !utterance.early && !this.ending && this.silentMs >= after;
  }

  /** The current utterance is complete (silence, a commit, 28 s, the session's end): its final pass is queued. */
  private endUtterance() {
    if (!this.utterance) return;
    this.partialAbort?.abort();
    this.finals.push(this.utterance);
    this.emit({ type: "committed", utterance: this.utterance });
    this.utterance = null;
    this.silentMs = 0;
    const buffered = this.finals.reduce((sum, utterance) => sum + utterance.length, 0) / SAMPLE_RATE;
    if (buffered > MAX_BUFFERED_SECONDS) this.overflow();
  }

  private overflow() {
    this.sendError(new AppError("rate_limited", `Too much audio is waiting to be transcribed (over ${MAX_BUFFERED_SECONDS} s): send audio no faster than real time.`, undefined, "rate_limit_exceeded"));
    this.finish("buffer_overflow");
  }

  /** Runs the next job: finals first, in order; else a partial of the growing utterance. */
  private pump() {
    try {
      this.next();
    } catch (error) {
      this.fail(error);
    }
  }

  private next() {
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
    if (utterance && this.earlyFinalDue(utterance)) {
      this.working = true;
      void this.startEarlyFinal(utterance).finally(() => {
        this.working = false;
        this.pump();
      });
      return;
    }
    if (utterance && this.settings.partials && !this.ending && this.silentMs < PARTIAL_QUIET_MS && utterance.sinceLastPartial >= (PARTIAL_EVERY_MS / 1000) * SAMPLE_RATE) {
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
        model: this.settings.model,
        source: this.service.config.modelSources[this.settings.model],
        samples,
        task: this.settings.task,
        language: this.language,
        prompt: this.settings.prompt,
        temperature: this.settings.temperature,
        wordTimestamps,
        timestamps,
        logprobs: this.settings.logprobs,
      },
      signal,
      undefined,
      "interactive",
    );
  }

  private noteLanguage(code: string) {
    if (this.language) return;
    this.language = code;
    this.emit({ type: "language", code });
  }

  private async runPartial(utterance: Utterance) {
    const partialAbort = new AbortController();
    this.partialAbort = partialAbort;
    try {
      const signal = AbortSignal.any([this.abort.signal, partialAbort.signal]);
      const result = await this.transcribe(joinChunks(utterance.chunks, utterance.length), false, false, signal);
      if (this.utterance !== utterance) return; // ended meanwhile: its final is what counts
      this.sendPartial(utterance, result);
    } catch (error) {
      // A partial is best effort: a busy engine (429) just means no partial this time.
      if (!(error instanceof CancelledJobError) && !(error instanceof AppError && error.code === "rate_limited")) this.sendError(error);
    } finally {
      if (this.partialAbort === partialAbort) this.partialAbort = null;
    }
  }

  private sendPartial(utterance: Utterance, result: TranscribeResult) {
    this.noteLanguage(result.languageCode);
    const words = wordsOfText(result.text);
    const { stable, unstable } = stabilisePartial(utterance.stableWords, utterance.previousWords, words);
    utterance.stableWords = stable;
    utterance.previousWords = words;
    this.emit({ type: "partial", utterance, stable, unstable });
  }

  /**
   * The final's pass over the utterance as it would end now (its trailing silence trimmed); the final
   * awaits it. If the speaker resumes instead, the pass was a pass over the utterance so far: a partial.
   */
  private async startEarlyFinal(utterance: Utterance) {
    const length = utterance.length - this.trailingSilenceFrames() * FRAME_SAMPLES;
    const samples = joinChunks(utterance.chunks, length);
    const abort = new AbortController();
    const result = this.wordTimestamps
      .catch(() => false)
      .then((words) => this.transcribe(samples, this.settings.words && words, true, AbortSignal.any([this.abort.signal, abort.signal])));
    utterance.early = { length, result, abort };
    // A failure is the final's to handle (it then runs a pass of its own).
    const outcome = await result.catch(() => null);
    if (this.partialAbort === abort) this.partialAbort = null;
    if (outcome && this.settings.partials && this.utterance === utterance && utterance.early?.result !== result) {
      this.sendPartial(utterance, outcome);
      utterance.sinceLastPartial = utterance.length - length; // the next partial waits for 1 s more than this pass saw
    }
  }

  private async runFinal(utterance: Utterance) {
    const samples = joinChunks(utterance.chunks, utterance.length);
    // Nothing was added since the early pass started (the speaker did not resume): it is this final's pass.
    let early = utterance.early?.length === utterance.length ? utterance.early.result : null;
    for (let attempt = 0; ; attempt++) {
      try {
        const words = this.settings.words && (await this.wordTimestamps.catch(() => false));
        const result = await (early ?? this.transcribe(samples, words, true));
        this.noteLanguage(result.languageCode);
        this.emit({ type: "final", utterance, result });
        return;
      } catch (error) {
        if (early && !this.abort.signal.aborted) {
          early = null; // the early pass failed (e.g. a busy engine): the final runs its own
          continue;
        }
        if (error instanceof CancelledJobError) return;
        if (error instanceof AppError && error.code === "rate_limited" && attempt < 20) {
          await new Promise((resolve) => setTimeout(resolve, 250)); // the engine is busy: a final is never dropped for that
          continue;
        }
        this.emit({ type: "error", error, utterance });
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
    this.emit({ type: "closed", reason, audioSeconds: Math.round((this.totalSamples / SAMPLE_RATE) * 100) / 100, segments: this.nextUtteranceId });
    this.ws.close(1000, reason);
    logger.debug(`realtime session ${this.id} closed: ${reason}`);
  }
}
