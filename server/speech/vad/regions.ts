/**
 * Where the speech is, from the VAD's per-chunk probabilities, with hysteresis: speech starts at a
 * chunk at or above `threshold`; it goes on until the probability has stayed below `threshold − 0.15`
 * for `silenceDurationMs` (a chunk back at `threshold` cancels the count). Pure: no model here.
 */
import { SAMPLE_RATE } from "../audio";

/** OpenAI's server-VAD parameters (chunking_strategy of the transcription API). */
export interface VadParameters {
  /** Probability (0…1) at or above which a chunk is speech. */
  threshold: number;
  /** Audio kept before the detected speech, ms. */
  prefixPaddingMs: number;
  /** Silence that ends a stretch of speech, ms. */
  silenceDurationMs: number;
}

/** Defaults of OpenAI's `server_vad` chunking strategy for transcriptions (its socket uses 500 ms of silence). */
export const FILE_VAD_DEFAULTS: VadParameters = { threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 200 };

/** Below threshold − this, a chunk counts as silence; between the two, it continues what it is in. */
const HYSTERESIS = 0.15;
/** Audio kept after the detected speech, ms: the end of the last word, and a little silence for Whisper to see it end. */
export const END_PADDING_MS = 200;
/** Shorter bursts of "speech" (a click, a cough) are not regions, ms. */
const MIN_SPEECH_MS = 90;

/** The probability under which a chunk is silence, for a given threshold. */
export const silenceBelow = (threshold: number) => Math.max(0, threshold - HYSTERESIS);

/** A stretch of audio to decode, in samples of the original audio: [start, end). */
export interface SpeechRegion {
  start: number;
  end: number;
}

/**
 * The speech regions of audio whose `chunkSamples`-sample chunks have these probabilities, padded
 * (`prefixPaddingMs` before, END_PADDING_MS after), overlapping ones merged, within [0, totalSamples).
 */
export function findSpeechRegions(probabilities: ArrayLike<number>, chunkSamples: number, totalSamples: number, parameters: VadParameters): SpeechRegion[] {
  const chunkMs = (chunkSamples / SAMPLE_RATE) * 1000;
  const low = silenceBelow(parameters.threshold);
  const raw: SpeechRegion[] = [];
  let start = -1;
  let silenceFrom = -1;
  const close = (endChunk: number) => {
    if ((endChunk - start) * chunkMs >= MIN_SPEECH_MS) raw.push({ start: start * chunkSamples, end: endChunk * chunkSamples });
    start = -1;
    silenceFrom = -1;
  };
  for (let i = 0; i < probabilities.length; i++) {
    const p = probabilities[i]!;
    if (start < 0) {
      if (p >= parameters.threshold) start = i;
      continue;
    }
    if (p >= parameters.threshold) silenceFrom = -1;
    else if (p < low && silenceFrom < 0) silenceFrom = i;
    if (silenceFrom >= 0 && (i + 1 - silenceFrom) * chunkMs >= parameters.silenceDurationMs) close(silenceFrom);
  }
  if (start >= 0) close(silenceFrom >= 0 ? silenceFrom : probabilities.length);

  const before = Math.round((parameters.prefixPaddingMs / 1000) * SAMPLE_RATE);
  const after = Math.round((END_PADDING_MS / 1000) * SAMPLE_RATE);
  const regions: SpeechRegion[] = [];
  for (const region of raw) {
    const padded = { start: Math.max(0, region.start - before), end: Math.min(totalSamples, region.end + after) };
    const last = regions.at(-1);
    if (last && padded.start <= last.end) last.end = Math.max(last.end, padded.end);
    else if (padded.end > padded.start) regions.push(padded);
  }
  return regions;
}
