/**
 * End-of-utterance decisions for a live audio stream: the session feeds 20 ms frames, the endpointer
 * says whether the speaker is in an utterance, for how long they have been silent, and when the
 * utterance has ended. The Silero VAD decides by default; the energy gate it replaced is kept for the
 * benchmark's side-by-side figure.
 */
import { SAMPLE_RATE } from "../audio";
import { type VadParameters, silenceBelow } from "./regions";
import { VAD_CHUNK_SAMPLES, VadStream } from "./silero";

/**
 * The socket's VAD: 500 ms of silence ends an utterance (OpenAI's server-VAD default for its socket).
 * Pauses for breath between phrases last 250–400 ms and must not end one; the VAD's probability falls
 * within one or two 32 ms chunks of the end of a word, so 500 ms leaves a margin.
 */
export const SOCKET_VAD: VadParameters = { threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 };

export interface EndpointStep {
  /** In an utterance after this frame (false on the frame that ends one). */
  speaking: boolean;
  /** This frame ended the utterance. */
  ended: boolean;
  /** How long the speaker has been silent within the utterance, ms (on an ending frame: the silence that ended it). */
  silentMs: number;
}

export interface Endpointer {
  readonly prefixPaddingMs: number;
  /**
   * After this much silence the utterance's final pass may start before the utterance ends: if the
   * speaker does not resume, its result is the final (null: wait for the end).
   */
  readonly earlyFinalAfterMs: number | null;
  push(frame: Float32Array): EndpointStep;
}

/** Silence counted in frames: it starts below the low mark and only a frame at the threshold stops it. */
class SilenceClock {
  speaking = false;
  silentMs = 0;
  private counting = false;

  constructor(private readonly silenceDurationMs: number) {}

  /** `level`: "speech" (at or above the threshold), "silence" (below the low mark) or "between". */
  next(level: "speech" | "silence" | "between", frameMs: number): EndpointStep {
    if (!this.speaking) {
      if (level !== "speech") return { speaking: false, ended: false, silentMs: 0 };
      this.speaking = true;
      this.counting = false;
      this.silentMs = 0;
      return { speaking: true, ended: false, silentMs: 0 };
    }
    if (level === "speech") this.counting = false;
    else if (level === "silence") this.counting = true;
    this.silentMs = this.counting ? this.silentMs + frameMs : 0;
    if (this.silentMs >= this.silenceDurationMs) {
      this.speaking = false;
      this.counting = false;
      return { speaking: false, ended: true, silentMs: this.silentMs };
    }
    return { speaking: true, ended: false, silentMs: this.silentMs };
  }
}

const frameMsOf = (frame: Float32Array) => (frame.length / SAMPLE_RATE) * 1000;

/** Silero VAD endpointing: one model stream per session, run on each 32 ms of audio as it completes. */
export class VadEndpointer implements Endpointer {
  readonly prefixPaddingMs: number;
  /**
   * Once the speaker has been silent this long, the final's pass starts (Whisper takes ~0.5 s for a short
   * utterance; the utterance ends 380 ms later). The VAD notices the silence a chunk or two after the last
   * word, so the pass sees ~150–180 ms of audio after it.
   */
  readonly earlyFinalAfterMs = 120;
  private readonly stream = new VadStream();
  private readonly clock: SilenceClock;
  private readonly chunk = new Float32Array(VAD_CHUNK_SAMPLES);
  private fill = 0;
  private probability = 0;

  constructor(private readonly parameters: VadParameters = SOCKET_VAD) {
    this.prefixPaddingMs = parameters.prefixPaddingMs;
    this.clock = new SilenceClock(parameters.silenceDurationMs);
  }

  push(frame: Float32Array): EndpointStep {
    for (let offset = 0; offset < frame.length; ) {
      const take = Math.min(frame.length - offset, VAD_CHUNK_SAMPLES - this.fill);
      this.chunk.set(frame.subarray(offset, offset + take), this.fill);
      this.fill += take;
      offset += take;
      if (this.fill === VAD_CHUNK_SAMPLES) {
        this.probability = this.stream.probability(this.chunk);
        this.fill = 0;
      }
    }
    const p = this.probability;
    const level = p >= this.parameters.threshold ? "speech" : p < silenceBelow(this.parameters.threshold) ? "silence" : "between";
    return this.clock.next(level, frameMsOf(frame));
  }
}

/** RMS above this (−40 dBFS) was voice for the energy gate. */
const ENERGY_SPEECH_RMS = 0.01;

/** The energy gate used before issue 20 (RMS > −40 dBFS, no early final pass), for comparison only. */
export class EnergyEndpointer implements Endpointer {
  readonly prefixPaddingMs: number;
  readonly earlyFinalAfterMs = null;
  private readonly clock: SilenceClock;

  constructor(parameters: VadParameters = { threshold: 0, prefixPaddingMs: 200, silenceDurationMs: 500 }) {
    this.prefixPaddingMs = parameters.prefixPaddingMs;
    this.clock = new SilenceClock(parameters.silenceDurationMs);
  }

  push(frame: Float32Array): EndpointStep {
    let energy = 0;
    for (let i = 0; i < frame.length; i++) energy += frame[i]! * frame[i]!;
    return this.clock.next(Math.sqrt(energy / frame.length) > ENERGY_SPEECH_RMS ? "speech" : "silence", frameMsOf(frame));
  }
}

export type EndpointingMethod = "vad" | "energy";

export const createEndpointer = (method: EndpointingMethod = "vad", parameters: VadParameters = SOCKET_VAD): Endpointer =>
  method === "energy" ? new EnergyEndpointer(parameters) : new VadEndpointer(parameters);
