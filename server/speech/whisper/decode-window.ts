/**
 * One decode of one window at one temperature: Markbook's own loop on the decoder session
 * (decoder-session.ts), the decoding rules applied to each logits row (logit-rules.ts), the token picked
 * (token-picker.ts); then the statistics the fallback judges the result by, and, for word timestamps,
 * transformers.js' own cross-attention DTW on the weights the steps returned. It decodes the tokens
 * transformers.js' generate() decodes (tests/speech-equivalence.test.ts), without its per-step work:
 * no cross-attention keys and values recomputed or copied per decode, no tensors re-wrapped, one pass
 * fewer over the logits.
 */
import { Tensor } from "@huggingface/transformers";
import { CancelledError } from "./cancelled";
import { DecoderSteps, type WindowCrossAttention } from "./decoder-session";
import { compressionRatio } from "./fallback";
import { applyLogitRules, logitRulesFor } from "./logit-rules";
import type { AnyModel } from "./model";
import { pickToken } from "./token-picker";

/** Samples per mel frame: word timestamps need the window's length in frames. */
const HOP_LENGTH = 160;
/** Seconds per encoder position (two mel frames). */
const TIME_PRECISION = 0.02;

export interface WindowDecode {
  /** The tokens decoded, <|endoftext|> left out. */
  tokens: number[];
  /** The log-probability of each token picked (<|endoftext|>'s included). */
  logprobs: number[];
  /** Each token's time in the window from cross-attention, when word timestamps were asked for. */
  tokenTimes: number[] | null;
  temperature: number;
  avgLogprob: number;
  compressionRatio: number;
  text: string;
  /** How many tokens the decoder produced, <|endoftext|> included. */
  generated: number;
}

/** What stays the same across the decodes of one window (only the temperature changes). */
export interface WindowDecoding {
  /** The generation config, and transformers.js' DTW for word timestamps. */
  model: AnyModel;
  /** The window's encoder output and cross-attention keys and values (first-step.ts). */
  cross: WindowCrossAttention;
  /** The decoder prompt (prompt.ts). */
  initTokens: number[];
  maxNewTokens: number;
  /** Benchmarks only: decode at least this many tokens. */
  minNewTokens?: number;
  useTimestamps: boolean;
  wordTimestamps: boolean;
  /** The window's length in samples. */
  windowLength: number;
  eot: number;
  decodeText: (ids: number[]) => string;
  isCancelled: () => boolean;
  /** Resolves when this job may run its next step (a batch job waits while an interactive one runs). */
  waitTurn: () => Promise<void>;
}

export async function decodeWindow(job: WindowDecoding, temperature: number): Promise<WindowDecode> {
  const { initTokens, maxNewTokens, eot } = job;
  const rules = logitRulesFor(job.model.generation_config, initTokens, {
    eot,
    useTimestamps: job.useTimestamps,
    minNewTokens: Math.min(job.minNewTokens ?? 0, maxNewTokens),
  });
  const steps = new DecoderSteps(job.cross, job.wordTimestamps);
  const generated: number[] = [];
  const logprobs: number[] = [];
  const crossAttentions: AnyModel[][] = [];
  let input: readonly number[] = initTokens;
  while (generated.length < maxNewTokens) {
    await job.waitTurn();
    if (job.isCancelled()) throw new CancelledError();
    const step = await steps.step(input);
    if (step.crossAttentions) crossAttentions.push(step.crossAttentions);
    const { logits } = step;
    applyLogitRules(rules, logits.values, initTokens, generated, logits);
    const largest = logits.settle();
    const { token, logprob } = pickToken(logits.values, temperature, Math.random, { end: logits.textEnd, largest });
    generated.push(token);
    logprobs.push(logprob);
    if (token === eot) break;
    input = [token];
  }
  const textTokens = generated.filter((id) => id < eot);
  const withoutEot = generated.at(-1) === eot ? generated.slice(0, -1) : generated;
  const sum = logprobs.reduce((a, b) => a + b, 0);
  const text = job.decodeText(textTokens);
  return {
    tokens: withoutEot,
    logprobs,
    tokenTimes: job.wordTimestamps ? tokenTimes(job, generated, crossAttentions) : null,
    temperature,
    avgLogprob: sum / (withoutEot.length + 1),
    compressionRatio: compressionRatio(text),
    text,
    generated: generated.length,
  };
}

/** Each generated token's time, by transformers.js' DTW over the alignment heads, given the steps' cross-attention weights as generate() would. */
function tokenTimes(job: WindowDecoding, generated: number[], crossAttentions: AnyModel[][]): number[] {
  const { model, initTokens } = job;
  const sequence = [...initTokens, ...generated];
  const outputs = {
    sequences: new Tensor("int64", BigInt64Array.from(sequence, (id) => BigInt(id)), [1, sequence.length]),
    cross_attentions: crossAttentions.map((layers) => layers.map((weights) => new Tensor("float32", weights.data, weights.dims))),
  };
  const numFrames = Math.floor(job.windowLength / HOP_LENGTH);
  const times = model._extract_token_timestamps(outputs, model.generation_config.alignment_heads, numFrames, TIME_PRECISION, initTokens.length);
  return (times.tolist()[0] as number[]).slice(initTokens.length).map(Number);
}
