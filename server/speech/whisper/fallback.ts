/**
 * OpenAI's temperature fallback: decode greedily and, while the result looks like a loop (its gzip
 * compression ratio is too high) or is unsure (its mean log-probability too low), decode again hotter;
 * the last decode stands if none passes. A window whose <|nospeech|> probability is high and whose
 * decode is unsure is silence: it gives no segment.
 */
import zlib from "node:zlib";
import type { EngineSettings } from "../engine-protocol";

export type FallbackThresholds = Pick<EngineSettings, "logprobThreshold" | "noSpeechThreshold" | "compressionRatioThreshold">;

/** What the fallback judges a decode by. */
export interface JudgedDecode {
  avgLogprob: number;
  compressionRatio: number;
}

/** UTF-8 bytes over deflated bytes: repeated text compresses well (0 for no text). */
export function compressionRatio(text: string): number {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length === 0) return 0;
  return bytes.length / zlib.deflateSync(bytes).length;
}

/** A temperature the caller chose is the only one tried; at 0, the fallback temperatures follow. */
export function temperaturesToTry(requested: number, fallbacks: readonly number[]): number[] {
  return requested > 0 ? [requested] : [0, ...fallbacks];
}

export function judgeDecode(decode: JudgedDecode, noSpeechProb: number, thresholds: FallbackThresholds): "silence" | "accept" | "retry" {
  const lowConfidence = decode.avgLogprob < thresholds.logprobThreshold;
  if (noSpeechProb > thresholds.noSpeechThreshold && lowConfidence) return "silence";
  if (decode.compressionRatio <= thresholds.compressionRatioThreshold && !lowConfidence) return "accept";
  return "retry";
}

/** Decodes at each temperature in turn until one is accepted: that decode, the last one, or null for silence. */
export async function decodeWithFallback<Decode extends JudgedDecode>(
  temperatures: readonly number[],
  decodeAt: (temperature: number) => Promise<Decode>,
  noSpeechProb: number,
  thresholds: FallbackThresholds,
): Promise<Decode | null> {
  let decoded: Decode | null = null;
  for (const temperature of temperatures) {
    decoded = await decodeAt(temperature);
    const verdict = judgeDecode(decoded, noSpeechProb, thresholds);
    if (verdict === "silence") return null;
    if (verdict === "accept") break;
  }
  return decoded;
}
