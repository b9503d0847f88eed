/**
 * The first decoder step, from <|startoftranscript|> alone: how likely the window holds no speech, and,
 * when the request names no language, which language it is (both read from the same logits, as OpenAI's
 * Whisper does).
 */
import { Tensor } from "@huggingface/transformers";
import type { AnyModel } from "./model";
import { logSumExp } from "./token-picker";

/** The logits of the step after <|startoftranscript|>, over the whole vocabulary. */
export async function firstStepLogits(model: AnyModel, encoderOutputs: unknown, sot: number): Promise<Float32Array> {
  const first = await model.forward({
    encoder_outputs: encoderOutputs,
    decoder_input_ids: new Tensor("int64", BigInt64Array.from([BigInt(sot)]), [1, 1]),
  });
  const logits = first.logits.data as Float32Array;
  const vocab = first.logits.dims.at(-1) as number;
  return logits.subarray(logits.length - vocab);
}

/** The softmax probability of <|nospeech|>. */
export function noSpeechProbability(logits: Float32Array, noSpeechToken: number): number {
  const { lse } = logSumExp(logits);
  return Math.exp(logits[noSpeechToken]! - lse);
}

/** The language whose token has the highest logit; undefined when the model knows no language or none beats -Infinity. */
export function mostLikelyLanguage(logits: Float32Array, languages: ReadonlyMap<number, string>): string | undefined {
  let best = -Infinity;
  let language: string | undefined;
  for (const [id, code] of languages) {
    if (logits[id]! > best) {
      best = logits[id]!;
      language = code;
    }
  }
  return language;
}
