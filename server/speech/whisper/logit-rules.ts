/**
 * The rules a Whisper decode applies to each logits row before a token is picked, Markbook's own code
 * doing what transformers.js' logits processors do in generate(), in the same order and with the same
 * float32 roundings (tests/speech-equivalence.test.ts holds them to the same tokens):
 * `min_new_tokens` (benchmarks), `suppress_tokens`, the timestamp rules (WhisperTimeStampLogitsProcessor)
 * and `begin_suppress_tokens` at the first generated position.
 */
import type { LogitsRow } from "./logits-row";
import { sumExpBelow } from "./token-picker";

export interface LogitRules {
  /** Tokens never decoded (the generation config's suppress_tokens). */
  suppress: readonly number[];
  /** Tokens not decoded first (begin_suppress_tokens: a blank and <|endoftext|>). */
  beginSuppress: readonly number[];
  eot: number;
  /** <|endoftext|> is impossible until this many tokens are decoded. */
  minNewTokens: number;
  /** The timestamp rules, when the decode has timestamp tokens. */
  timestamps: { noTimestamps: number; timestampBegin: number; beginIndex: number } | null;
}

interface GenerationConfig {
  suppress_tokens?: number[] | null;
  begin_suppress_tokens?: number[] | null;
  no_timestamps_token_id: number;
}

export function logitRulesFor(config: GenerationConfig, initTokens: readonly number[], options: { eot: number; useTimestamps: boolean; minNewTokens?: number }): LogitRules {
  const noTimestamps = config.no_timestamps_token_id;
  return {
    suppress: config.suppress_tokens ?? [],
    beginSuppress: config.begin_suppress_tokens ?? [],
    eot: options.eot,
    minNewTokens: options.minNewTokens ?? 0,
    timestamps: options.useTimestamps
      ? { noTimestamps, timestampBegin: noTimestamps + 1, beginIndex: initTokens.length - (initTokens.at(-1) === noTimestamps ? 1 : 0) }
      : null,
  };
}

/** A row whose text tokens' logits may need settling before they are read (logits-row.ts). */
type Settling = Pick<LogitsRow, "settle" | "textEnd">;
const alreadyExact: Settling = { textEnd: 0, settle: () => -1 };

/**
 * Applies the rules to the row of the step after `initTokens` and the `generated` tokens. `settling`
 * makes exact the logits that may be the largest (logits-row.ts), before the one rule that reads a value.
 */
export function applyLogitRules(
  rules: LogitRules,
  row: Float32Array,
  initTokens: readonly number[],
  generated: readonly number[],
  settling: Settling = alreadyExact,
) {
  if (generated.length < rules.minNewTokens) row[rules.eot] = -Infinity;
  for (const token of rules.suppress) row[token] = -Infinity;
  if (rules.timestamps) applyTimestampRules(rules.timestamps, rules.eot, row, initTokens, generated, settling);
  if (generated.length === 0) for (const token of rules.beginSuppress) row[token] = -Infinity;
}

/**
 * OpenAI's timestamp rules: none but a timestamp first; timestamps in pairs (a lone one only before
 * <|endoftext|>); and a timestamp whenever all timestamps together are more probable than any text token.
 */
function applyTimestampRules(
  rule: NonNullable<LogitRules["timestamps"]>,
  eot: number,
  row: Float32Array,
  initTokens: readonly number[],
  generated: readonly number[],
  settling: Settling,
) {
  const { timestampBegin, beginIndex } = rule;
  row[rule.noTimestamps] = -Infinity;
  const length = initTokens.length + generated.length;
  if (length === beginIndex) {
    row.fill(-Infinity, 0, timestampBegin);
    return;
  }
  const tokenAt = (index: number) => (index < initTokens.length ? initTokens[index]! : generated[index - initTokens.length]!);
  const decoded = length - beginIndex;
  const lastWasTimestamp = decoded >= 1 && tokenAt(length - 1) >= timestampBegin;
  const penultimateWasTimestamp = decoded < 2 || tokenAt(length - 2) >= timestampBegin;
  if (lastWasTimestamp) {
    if (penultimateWasTimestamp) row.fill(-Infinity, timestampBegin);
    else row.fill(-Infinity, 0, eot);
  }
  const largestText = settling.settle();
  // The text tokens are those settle() covers (an 8-bit row), or their largest is looked for here.
  const maxText = settling.textEnd === timestampBegin ? (largestText >= 0 ? row[largestText]! : -Infinity) : largestBelow(row, timestampBegin);
  if (timestampsMoreProbable(row, timestampBegin, maxText)) row.fill(-Infinity, 0, timestampBegin);
}

function largestBelow(row: Float32Array, end: number): number {
  let max = -Infinity;
  for (let i = 0; i < end; i++) if (row[i]! > max) max = row[i]!;
  return max;
}

/** Beyond this distance between the two sides, the float32 roundings below cannot change the answer. */
const CLEAR_MARGIN = 1e-4;

/**
 * Whether all timestamps together are more probable than the most probable text token: log Σ exp(timestamp
 * logits) against the largest text logit (the softmax's normaliser is on both sides). Decided from the
 * timestamps' own sum (1501 exponentials) when the answer is clear by more than the roundings, else the
 * way transformers.js computes it, through the log-softmax of the whole row rounded to float32.
 */
function timestampsMoreProbable(row: Float32Array, timestampBegin: number, maxText: number): boolean {
  let maxTimestamp = -Infinity;
  for (let i = timestampBegin; i < row.length; i++) if (row[i]! > maxTimestamp) maxTimestamp = row[i]!;
  if (maxTimestamp === -Infinity) return false;
  const gap = maxTimestamp + Math.log(sumExpBelow(row, maxTimestamp, timestampBegin)) - maxText;
  if (gap > CLEAR_MARGIN) return true;
  if (gap < -CLEAR_MARGIN) return false;
  return timestampsMoreProbableInFloat32(row, timestampBegin, maxText);
}

/** The comparison on log-probabilities rounded to float32, as transformers.js' log_softmax returns them, so that a near tie falls the same way. */
function timestampsMoreProbableInFloat32(row: Float32Array, timestampBegin: number, maxText: number): boolean {
  let max = row[0]!;
  for (let i = 1; i < row.length; i++) if (row[i]! > max) max = row[i]!;
  let sumExps = 0;
  for (let i = 0; i < row.length; i++) sumExps += Math.exp(row[i]! - max);
  const logSum = Math.log(sumExps);
  let timestampSum = 0;
  for (let i = timestampBegin; i < row.length; i++) timestampSum += Math.fround(Math.exp(Math.fround(row[i]! - max - logSum)));
  return Math.log(timestampSum) > Math.fround(maxText - max - logSum);
}
