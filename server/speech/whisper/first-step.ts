/**
 * The first decoder step of a window, from <|startoftranscript|> alone: how likely the window holds no
 * speech, and, when the request names no language, which language it is (both read from the same
 * logits, as OpenAI's Whisper does). The same step computes the window's cross-attention keys and
 * values, which every decode of the window then reuses (decoder-session.ts).
 */
import { type WindowCrossAttention, startWindow } from "./decoder-session";
import type { AnyModel, LoadedWhisper } from "./model";
import { logSumExp } from "./token-picker";

/**
 * The logits of the step after <|startoftranscript|>, over the whole vocabulary (<|nospeech|>'s and the
 * languages' exact: they are the ones read), and the window's cross-attention.
 */
export async function firstStep(loaded: LoadedWhisper, encoderOutputs: AnyModel): Promise<{ logits: Float32Array; cross: WindowCrossAttention }> {
  const { model, projection, tokens } = loaded;
  const { logits, cross } = await startWindow(model.sessions.decoder_model_merged, projection, encoderOutputs.ort_tensor ?? encoderOutputs, tokens.sot);
  logits.makeExact([tokens.noSpeech, ...tokens.languages.keys()]);
  return { logits: logits.values, cross };
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
