/**
 * The server's turn detection over a session's 20 ms frames: the endpointer of the session's current
 * settings (a new one when they change), and the silent frames kept as the next utterance's lead-in.
 */
import { SAMPLE_RATE } from "../audio";
import { type Endpointer, type EndpointingMethod, createEndpointer } from "../vad/endpointer";
import type { TurnDetection } from "./protocol";

export class TurnDetector {
  /** The endpointer of the current turn detection (a new one when the settings change it). */
  private current: { turn: TurnDetection; endpointer: Endpointer } | null = null;
  /** Recent silent frames, kept as the utterance's lead-in. */
  private preRoll: Float32Array[] = [];

  /** The endpointer's step over one frame, under `turn` (the session's settings now). */
  push(frame: Float32Array, turn: TurnDetection, method: EndpointingMethod | undefined) {
    if (this.current?.turn !== turn) {
      const parameters = { threshold: turn.threshold, prefixPaddingMs: turn.paddingMs, silenceDurationMs: turn.silenceMs };
      this.current = { turn, endpointer: createEndpointer(method, parameters) };
    }
    return this.current.endpointer.push(frame);
  }

  /** After how much silence the final's pass may start in a pause (the endpointer's; undefined before the first frame). */
  get earlyFinalAfterMs() {
    return this.current?.endpointer.earlyFinalAfterMs;
  }

  /** Keeps a silent frame as lead-in: the last `paddingMs` of them. */
  keepLeadIn(frame: Float32Array, paddingMs: number) {
    const frameMs = (frame.length / SAMPLE_RATE) * 1000;
    this.preRoll.push(frame);
    if (this.preRoll.length * frameMs > paddingMs) this.preRoll.shift();
  }

  /** The lead-in kept, taken for the utterance that starts now. */
  takeLeadIn() {
    const lead = this.preRoll;
    this.preRoll = [];
    return lead;
  }

  /** Forgets the lead-in (the client cleared the buffer). */
  dropLeadIn() {
    this.preRoll = [];
  }
}
