/**
 * One decoder step's logits over the vocabulary, as the decoding rules and the token picker read them.
 *
 * From a decoder rewritten to project in 8 bits (onnx-int8-logits.ts), the text tokens' logits arrive
 * approximate: the hidden state was rounded to 8 bits, the embedding was not (it is stored in 8 bits).
 * The rounding error of each token's logit is bounded: every hidden value moved by at most one
 * quantization step s, so the logit moved by at most s × Σ|embedding row| (the row's L1 norm, known at
 * load). `settle()` computes the exact logit, from the hidden state and the stored embedding, of every
 * token whose bound reaches the best lower bound: whichever of them is largest is the largest of the
 * whole row, exactly as a float projection would have it. A handful of tokens per step, out of 51,865.
 * The timestamp tokens' logits arrive exact (the timestamp rule sums all of them).
 *
 * What stays approximate: the logits of tokens that cannot be the largest. They enter only the softmax's
 * normaliser (log-probabilities, within the bound, in practice ~1e-3) and sampling at a temperature
 * above 0 (decisions.md).
 */
import type { StoredEmbedding } from "../onnx-int8-logits";

/** What the rounding of the float computations adds to the bound: the exact logit is itself a float32 sum. */
const FLOAT_SLACK = 1e-5;

/** The stored embedding and what the bound needs of it, computed once per model. */
export class Int8Projection {
  /** Σ|q − zero point| × scale per row: the error of a logit per unit of hidden-state rounding. */
  private readonly rowNorms: Float32Array;

  constructor(
    readonly embedding: StoredEmbedding,
    /** The first timestamp token: tokens from here on arrive exact. */
    readonly firstTimestamp: number,
  ) {
    const { values, rows, width, zeroPoint, scale } = embedding;
    this.rowNorms = new Float32Array(rows);
    for (let row = 0; row < rows; row++) {
      let sum = 0;
      for (let i = row * width, end = i + width; i < end; i++) sum += Math.abs(values[i]! - zeroPoint);
      this.rowNorms[row] = sum * scale;
    }
  }

  /** The exact logit of `token` for this hidden state: Σ hidden × (q − zero point) × scale, each weight rounded to float32 as onnxruntime dequantizes it. */
  exactLogit(hidden: Float32Array, token: number): number {
    const { values, width, zeroPoint, scale } = this.embedding;
    let sum = 0;
    for (let i = 0, at = token * width; i < width; i++, at++) sum += hidden[i]! * Math.fround((values[at]! - zeroPoint) * scale);
    return Math.fround(sum);
  }

  /** How far an approximate logit may be from the exact one. */
  bound(token: number, step: number, value: number): number {
    return step * this.rowNorms[token]! + FLOAT_SLACK * (1 + Math.abs(value));
  }
}

export interface LogitsRow {
  readonly values: Float32Array;
  /** Makes exact every text token that may be the largest of those not at -Infinity (nothing to do when the row is exact). */
  readonly settle: () => void;
  /** Makes these tokens' logits exact. */
  readonly makeExact: (tokens: Iterable<number>) => void;
}

/** A row computed in float: exact already. */
export function exactRow(values: Float32Array): LogitsRow {
  return { values, settle: () => {}, makeExact: () => {} };
}

/**
 * One quantization step of the hidden state, uint8 over its range and 0, as DynamicQuantizeMatMul
 * quantizes it: the whole tensor at once (every row of a prompt together). No hidden value moved by more.
 */
function quantizationStep(hidden: Float32Array): number {
  let min = 0;
  let max = 0;
  for (let i = 0; i < hidden.length; i++) {
    if (hidden[i]! < min) min = hidden[i]!;
    else if (hidden[i]! > max) max = hidden[i]!;
  }
  return (max - min) / 255;
}

/**
 * The last row of a step of the 8-bit projection: `approximate` the text tokens' logits, `timestamps`
 * the timestamp tokens' (exact), from `hidden`, the hidden-state tensor the projection read.
 */
export function int8Row(projection: Int8Projection, approximate: Float32Array, timestamps: Float32Array, hiddenTensor: Float32Array): LogitsRow {
  const step = quantizationStep(hiddenTensor);
  const hidden = hiddenTensor.subarray(hiddenTensor.length - projection.embedding.width);
  const values = approximate;
  values.set(timestamps, projection.firstTimestamp);
  const exact = new Uint8Array(projection.firstTimestamp);
  /** The token whose lower bound was the best at the last settle(), -1 before. */
  let best = -1;
  const makeExactAt = (token: number) => {
    if (token >= projection.firstTimestamp || exact[token]) return;
    if (values[token] !== -Infinity) values[token] = projection.exactLogit(hidden, token);
    exact[token] = 1;
  };
  return {
    values,
    makeExact: (tokens) => {
      for (const token of tokens) makeExactAt(token);
    },
    settle: () => {
      // The rules only ever mask (-Infinity): while the token that set the best lower bound stands, every
      // token that could beat it is exact already.
      if (best >= 0 && values[best] !== -Infinity) return;
      const end = projection.firstTimestamp;
      let bestLower = -Infinity;
      best = -1;
      for (let token = 0; token < end; token++) {
        const value = values[token]!;
        if (value === -Infinity) continue;
        const lower = exact[token] ? value : value - projection.bound(token, step, value);
        if (lower > bestLower) {
          bestLower = lower;
          best = token;
        }
      }
      if (best < 0) return;
      for (let token = 0; token < end; token++) {
        const value = values[token]!;
        if (exact[token] || value === -Infinity) continue;
        if (value + projection.bound(token, step, value) >= bestLower) makeExactAt(token);
      }
    },
  };
}
