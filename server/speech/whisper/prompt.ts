/**
 * What the decoder is given before it writes: the caller's prompt and the previous windows' text after
 * <|startofprev|>, then <|startoftranscript|>, the language and task, and <|notimestamps|> when segments
 * are not wanted, as OpenAI's Whisper builds it.
 */
import type { AnyProcessor, LoadedWhisper } from "./model";

/** Whisper's decoder has 448 positions; OpenAI keeps at most 223 prompt tokens. */
const MAX_TARGET_POSITIONS = 448;
const MAX_PROMPT_TOKENS = 223;

/** The caller's prompt as text tokens (a leading space, as OpenAI encodes it); none without a prompt. */
export function encodePrompt(tokenizer: AnyProcessor, prompt: string | undefined): number[] {
  return prompt ? tokenizer.encode(` ${prompt.trim()}`, { add_special_tokens: false }) : [];
}

export interface DecoderPromptInput {
  tokens: LoadedWhisper["tokens"];
  multilingual: boolean;
  promptTokens: readonly number[];
  previousText: readonly number[];
  languageCode: string | undefined;
  task: "transcribe" | "translate";
  useTimestamps: boolean;
}

export function decoderPrompt({ tokens, multilingual, promptTokens, previousText, languageCode, task, useTimestamps }: DecoderPromptInput): number[] {
  const prompt = [...promptTokens, ...previousText].slice(-MAX_PROMPT_TOKENS);
  return [
    ...(prompt.length > 0 ? [tokens.startOfPrev, ...prompt] : []),
    tokens.sot,
    ...(multilingual ? [tokens.languageIds.get(languageCode!)!, task === "translate" ? tokens.translate : tokens.transcribe] : []),
    ...(useTimestamps ? [] : [tokens.noTimestamps]),
  ];
}

/** The configured token budget, within the positions the prompt leaves (one kept for <|endoftext|>), at least one. */
export function maxNewTokens(promptLength: number, configured: number): number {
  return Math.max(1, Math.min(configured, MAX_TARGET_POSITIONS - promptLength - 1));
}

/** The next window is conditioned on this one's text, as OpenAI does, unless it was sampled hot (then on nothing). */
export function previousTextAfter(previous: readonly number[], decoded: { tokens: readonly number[]; temperature: number }, eot: number): number[] {
  return decoded.temperature <= 0.5 ? [...previous, ...decoded.tokens.filter((id) => id < eot)] : [];
}
