import { LogitsProcessor, type Tensor } from "@huggingface/transformers";
import { CancelledError } from "./cancelled";
import type { AnyModel } from "./model";

/** The largest logit and log(Σ exp(logit)), computed without overflow. */
export function logSumExp(values: Float32Array): { max: number; lse: number } {
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) if (values[i]! > max) max = values[i]!;
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += Math.exp(values[i]! - max);
  return { max, lse: max + Math.log(sum) };
}

/**
 * The last logits processor: picks the token itself (argmax at temperature 0, else a sample from the
 * whole distribution, as OpenAI's Whisper does), records its log-probability before temperature, and
 * leaves only that token possible so that transformers.js' greedy step takes it.
 */
export class TokenPicker extends LogitsProcessor {
  readonly tokens: number[] = [];
  readonly logprobs: number[] = [];
  constructor(
    private readonly temperature: number,
    private readonly isCancelled: () => boolean,
  ) {
    super();
  }

  _call(_inputIds: bigint[][], logits: Tensor) {
    if (this.isCancelled()) throw new CancelledError();
    const row = (logits as AnyModel)[0].data as Float32Array;
    const { max, lse } = logSumExp(row);
    let chosen = 0;
    if (this.temperature === 0) {
      for (let i = 1; i < row.length; i++) if (row[i]! > row[chosen]!) chosen = i;
    } else {
      let total = 0;
      const weights = new Float64Array(row.length);
      for (let i = 0; i < row.length; i++) total += weights[i] = Math.exp((row[i]! - max) / this.temperature);
      let target = Math.random() * total;
      for (chosen = 0; chosen < row.length - 1; chosen++) {
        target -= weights[chosen]!;
        if (target <= 0 && weights[chosen]! > 0) break;
      }
    }
    this.tokens.push(chosen);
    this.logprobs.push(row[chosen]! - lse);
    row.fill(-Infinity);
    row[chosen] = 0;
    return logits;
  }
}
