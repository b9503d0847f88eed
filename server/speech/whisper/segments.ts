/**
 * A decoded window into transcript segments: split at pairs of timestamp tokens, placed in the
 * transcript's time, with each segment's statistics and, from the token times, its words.
 */
import type { Segment, Word } from "../formats";
import type { WindowDecode } from "./decode-window";

/** Seconds per timestamp token step. */
const TIME_PRECISION = 0.02;

/** Where a decoded window sits in the transcript, and what is known of it. */
export interface WindowPlace {
  /** Start of the window in the audio, seconds. */
  offsetSeconds: number;
  windowSeconds: number;
  noSpeechProb: number;
  /** The id of the window's first segment (segments are numbered across the transcript). */
  firstId: number;
  timestampBegin: number;
  useTimestamps: boolean;
}

/** What segments are made of: the decode's tokens and statistics. */
type DecodedTokens = Pick<WindowDecode, "tokens" | "logprobs" | "tokenTimes" | "temperature" | "avgLogprob" | "compressionRatio">;

/** The window's segments, blank ones left out; each has its words when the decode has token times. */
export function windowSegments(decoded: DecodedTokens, place: WindowPlace, decodeText: (ids: number[]) => string): Segment[] {
  const segments: Segment[] = [];
  const { offsetSeconds } = place;
  for (const piece of segmentsOfWindow(decoded, place.timestampBegin, place.windowSeconds, place.useTimestamps)) {
    const text = decodeText(piece.textIndexes.map((i) => decoded.tokens[i]!));
    if (text.trim() === "") continue;
    const words = decoded.tokenTimes ? wordsOf(piece.textIndexes, decoded, decodeText, offsetSeconds) : undefined;
    segments.push({
      id: place.firstId + segments.length,
      seek: offsetSeconds,
      start: offsetSeconds + piece.start,
      end: offsetSeconds + piece.end,
      text,
      tokens: piece.tokenIndexes.map((i) => decoded.tokens[i]!),
      temperature: decoded.temperature,
      avg_logprob: decoded.avgLogprob,
      compression_ratio: decoded.compressionRatio,
      no_speech_prob: place.noSpeechProb,
      ...(words ? { words } : {}),
    });
  }
  return segments;
}

interface WindowPiece {
  start: number;
  end: number;
  /** Indexes into the decode's tokens: all of the piece, and only its text tokens. */
  tokenIndexes: number[];
  textIndexes: number[];
}

/** Splits a window's tokens into segments at pairs of timestamp tokens, as OpenAI's transcribe() does. */
function segmentsOfWindow(
  decoded: Pick<WindowDecode, "tokens">,
  timestampBegin: number,
  windowSeconds: number,
  useTimestamps: boolean,
): WindowPiece[] {
  const ids = decoded.tokens;
  const isTimestamp = (i: number) => ids[i]! >= timestampBegin;
  const time = (i: number) => (ids[i]! - timestampBegin) * TIME_PRECISION;
  const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, k) => from + k);
  const piece = (from: number, to: number, start: number, end: number): WindowPiece => {
    const tokenIndexes = range(from, to);
    return { start, end, tokenIndexes, textIndexes: tokenIndexes.filter((i) => !isTimestamp(i)) };
  };
  if (!useTimestamps) return [piece(0, ids.length, 0, windowSeconds)];
  const boundaries: number[] = [];
  for (let i = 1; i < ids.length; i++) if (isTimestamp(i) && isTimestamp(i - 1)) boundaries.push(i);
  const pieces: WindowPiece[] = [];
  if (boundaries.length > 0) {
    let from = 0;
    for (const boundary of boundaries) {
      pieces.push(piece(from, boundary, isTimestamp(from) ? time(from) : 0, time(boundary - 1)));
      from = boundary;
    }
    if (from < ids.length) {
      const last = ids.length - 1;
      pieces.push(piece(from, ids.length, time(from), isTimestamp(last) && last > from ? time(last) : windowSeconds));
    }
  } else {
    const timestamps = range(0, ids.length).filter(isTimestamp);
    const start = timestamps.length > 0 && timestamps[0] === 0 ? time(0) : 0;
    const lastTimestamp = timestamps.at(-1);
    const end = lastTimestamp !== undefined && lastTimestamp > 0 ? time(lastTimestamp) : windowSeconds;
    pieces.push(piece(0, ids.length, start, end));
  }
  return pieces;
}

/** Words from token times (cross-attention alignment): a token starting with a space starts a word. */
function wordsOf(textIndexes: number[], decoded: DecodedTokens, decodeText: (ids: number[]) => string, offsetSeconds: number): Word[] {
  const times = decoded.tokenTimes!;
  const result: Word[] = [];
  let current: { text: string; first: number; last: number; probabilities: number[] } | null = null;
  const flush = () => {
    if (!current || current.text.trim() === "") return;
    const end = times[current.last + 1] ?? times[current.last] ?? 0;
    result.push({
      word: current.text.trim(),
      start: offsetSeconds + (times[current.first] ?? 0),
      end: offsetSeconds + Math.max(end, times[current.first] ?? 0),
      probability: current.probabilities.reduce((a, b) => a + b, 0) / current.probabilities.length,
    });
  };
  for (const index of textIndexes) {
    const piece = decodeText([decoded.tokens[index]!]);
    const probability = Math.exp(decoded.logprobs[index] ?? -Infinity);
    if (!current || /^\s/.test(piece)) {
      flush();
      current = { text: piece, first: index, last: index, probabilities: [probability] };
    } else {
      current.text += piece;
      current.last = index;
      current.probabilities.push(probability);
    }
  }
  flush();
  return result;
}
