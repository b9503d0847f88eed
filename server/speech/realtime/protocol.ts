/**
 * What the session core and a protocol agree on (docs/realtime.md): the settings a session transcribes
 * with, the events the core reports, the controls a protocol may use, and the shape of a protocol. The
 * core (session.ts) knows only these; each protocol (dictation.ts, openai.ts) implements them.
 */
import type { IncomingMessage } from "node:http";
import type { SpeechModelId } from "../config";
import type { TranscribeResult } from "../engine-protocol";
import type { SpeechService } from "../service";
import type { EndpointingMethod } from "../vad/endpointer";
import type { Utterance } from "./utterance";

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
