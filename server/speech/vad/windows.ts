/**
 * Speech regions put together into the windows Whisper decodes (at most 30 s each), silence between
 * them left out, with the way back from a window's time to the original audio's.
 */
import { SAMPLE_RATE } from "../audio";
import type { Segment } from "../formats";
import { CancelledError } from "../whisper/cancelled";
import { type SpeechRegion, type VadParameters, findSpeechRegions } from "./regions";
import { VAD_CHUNK_SAMPLES, speechProbabilities } from "./silero";

/** A stretch of the original audio inside a window: original samples [from, to) at window sample `at`. */
interface Piece {
  from: number;
  to: number;
  at: number;
}

export interface SpeechWindow {
  samples: Float32Array;
  pieces: Piece[];
}

/**
 * Consecutive regions are joined into one window while they fit in `maxSamples`; a region longer than
 * that is cut into window-long parts, as the engine cuts audio without VAD.
 */
export function speechWindows(samples: Float32Array, regions: readonly SpeechRegion[], maxSamples: number): SpeechWindow[] {
  const windows: Piece[][] = [];
  let current: Piece[] = [];
  let fill = 0;
  for (const region of regions) {
    for (let from = region.start; from < region.end; ) {
      if (fill === maxSamples) {
        windows.push(current);
        current = [];
        fill = 0;
      }
      // A region that does not fit in what is left of the window starts the next one: only a region
      // longer than a window is split, every window-length from its start.
      if (region.end - from > maxSamples - fill && fill > 0) {
        windows.push(current);
        current = [];
        fill = 0;
      }
      const to = from + Math.min(region.end - from, maxSamples - fill);
      current.push({ from, to, at: fill });
      fill += to - from;
      from = to;
    }
  }
  if (current.length > 0) windows.push(current);
  return windows.map((pieces) => {
    const length = pieces.reduce((sum, piece) => sum + (piece.to - piece.from), 0);
    const audio = new Float32Array(length);
    for (const piece of pieces) audio.set(samples.subarray(piece.from, piece.to), piece.at);
    return { samples: audio, pieces };
  });
}

/**
 * A time of the window (seconds) in the original audio. A time on the seam of two pieces is the end of
 * the first (`"end"`) or the start of the second (`"start"`); times past the window's audio stay at its end.
 */
export function originalTime(window: Pick<SpeechWindow, "pieces">, seconds: number, edge: "start" | "end"): number {
  const sample = seconds * SAMPLE_RATE;
  const { pieces } = window;
  let piece = pieces[0]!;
  for (const candidate of pieces) {
    if (edge === "start" ? candidate.at <= sample : candidate.at < sample) piece = candidate;
    else break;
  }
  const within = Math.min(Math.max(0, sample - piece.at), piece.to - piece.from);
  return (piece.from + within) / SAMPLE_RATE;
}

/**
 * The windows the engine decodes: the audio cut every `maxSamples`; or, with `vad`, only its speech
 * regions, joined into windows of at most `maxSamples`. Runs in the engine worker (never on the
 * server's event loop): about 0.15 ms of VAD per 32 ms of a long file.
 */
export function windowsToDecode(samples: Float32Array, vad: VadParameters | undefined, maxSamples: number, isCancelled: () => boolean): SpeechWindow[] {
  if (vad) {
    const probabilities = speechProbabilities(samples, isCancelled);
    if (isCancelled()) throw new CancelledError();
    return speechWindows(samples, findSpeechRegions(probabilities, VAD_CHUNK_SAMPLES, samples.length, vad), maxSamples);
  }
  const windows: SpeechWindow[] = [];
  for (let from = 0; from < samples.length; from += maxSamples) {
    const to = Math.min(from + maxSamples, samples.length);
    windows.push({ samples: samples.subarray(from, to), pieces: [{ from, to, at: 0 }] });
  }
  return windows;
}

/**
 * A segment found in a window of speech regions (its times from the window's start), in the audio's
 * time: start, end and words go through the window's pieces; `seek` is where the window's audio began.
 */
export function inAudioTime(segment: Segment, window: SpeechWindow): Segment {
  const words = segment.words?.map((word) => ({ ...word, start: originalTime(window, word.start, "start"), end: originalTime(window, word.end, "end") }));
  return {
    ...segment,
    seek: window.pieces[0]!.from / SAMPLE_RATE,
    start: originalTime(window, segment.start, "start"),
    end: originalTime(window, segment.end, "end"),
    ...(words ? { words } : {}),
  };
}
