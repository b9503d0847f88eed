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
 * above 0 (docs/decisions.md "The logits in 8 bits, exact where it matters").
 */
import type { StoredEmbedding } from "../onnx-int8-logits";

/** What the rounding of the float computations adds to the bound: the exact logit is itself a float32 sum. */
const FLOAT_SLACK = 1e-5;

/** The stored embedding and what the bound needs of it, computed once per model. */
export class Int8Projection {
  /** Σ|q − zero point| × scale per row: the error of a logit per unit of hidden-state rounding. */
  private readonly rowNorms: Float32Array;
  /** The largest of the row norms. */
  readonly maxRowNorm: number;

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
    this.maxRowNorm = this.rowNorms.reduce((max, norm) => Math.max(max, norm), 0);
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
  /** settle() covers the tokens before this one: the text tokens of an 8-bit row, none of an exact row. */
  readonly textEnd: number;
  /**
   * Makes exact every token before textEnd that may be the largest of those not at -Infinity, and
   * returns the largest of them (the first of equal ones), -1 when there is none.
   */
  readonly settle: () => number;
  /** Makes these tokens' logits exact. */
  readonly makeExact: (tokens: Iterable<number>) => void;
}

/** A row computed in float: exact already. */
export function exactRow(values: Float32Array): LogitsRow {
  return { values, textEnd: 0, settle: () => -1, makeExact: () => {} };
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
  const end = projection.firstTimestamp;
  /** Tokens made exact: a handful per step (no flag array over the vocabulary to allocate at each one). */
  const exact = new Set<number>();
  /** The token whose lower bound was the best at the last settle(), -1 before. */
  let best = -1;
  /** The tokens whose upper bound reached it, made exact then, in order. */
  let candidates: number[] = [];
  const makeExactAt = (token: number) => {
    if (token >= end || exact.has(token)) return;
    if (values[token] !== -Infinity) values[token] = projection.exactLogit(hidden, token);
    exact.add(token);
  };
  const bound = (token: number, value: number) => (exact.has(token) ? 0 : projection.bound(token, step, value));
  /** The largest candidate not masked since: the largest text logit, as every other is below the best lower bound. */
  const largestCandidate = () => {
    let largest = -1;
    for (const token of candidates) if (values[token]! !== -Infinity && (largest < 0 || values[token]! > values[largest]!)) largest = token;
    return largest;
  };
  return {
    values,
    textEnd: end,
    makeExact: (tokens) => {
      for (const token of tokens) makeExactAt(token);
    },
    settle: () => {
      // The rules only ever mask (-Infinity): while the token that set the best lower bound stands, every
      // token that could beat it is exact already.
      if (best >= 0 && values[best] !== -Infinity) return largestCandidate();
      let top = -1;
      let topValue = -Infinity;
      for (let token = 0; token < end; token++) {
        if (values[token]! > topValue) {
          topValue = values[token]!;
          top = token;
        }
      }
      best = top;
      candidates = [];
      if (top < 0) return -1;
      // A token's upper bound grows with its value: below `cut`, even the largest row norm cannot lift it
      // to the top token's lower bound, which the best lower bound is at least. One comparison per token;
      // the bounds only for the few above the cut.
      const topLower = topValue - bound(top, topValue);
      const spread = step * projection.maxRowNorm;
      const cut = topLower - spread - 2 * FLOAT_SLACK * (1 + Math.abs(topLower) + spread);
      const near: number[] = [];
      let bestLower = topLower;
      for (let token = 0; token < end; token++) {
        const value = values[token]!;
        if (!(value >= cut)) continue;
        near.push(token);
        const lower = value - bound(token, value);
        if (lower > bestLower) {
          bestLower = lower;
          best = token;
        }
      }
      for (const token of near) {
        if (values[token]! + bound(token, values[token]!) < bestLower) continue;
        makeExactAt(token);
        candidates.push(token);
      }
      return largestCandidate();
    },
  };
}
