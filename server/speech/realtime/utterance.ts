/** An utterance: the audio between two turns, as the session core cuts it and the protocols name it. */
import type { TranscribeResult } from "../engine-protocol";

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

/** A new utterance, its audio beginning with `lead` (the silence kept before the voice started). */
export function newUtterance(id: number, startSample: number, lead: Float32Array[]): Utterance {
  return {
    id,
    startSample,
    chunks: [...lead],
    length: lead.reduce((sum, chunk) => sum + chunk.length, 0),
    sinceLastPartial: 0,
    stableWords: [],
    previousWords: null,
    early: null,
  };
}

/** One more frame of the utterance. */
export function addFrame(utterance: Utterance, frame: Float32Array) {
  utterance.chunks.push(frame);
  utterance.length += frame.length;
  utterance.sinceLastPartial += frame.length;
}

/** The first `length` samples of the chunks. */
export const joinChunks = (chunks: Float32Array[], length: number) => {
  const samples = new Float32Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    if (offset >= length) break;
    samples.set(chunk.subarray(0, length - offset), offset);
    offset += chunk.length;
  }
  return samples;
};
