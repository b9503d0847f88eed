/** The largest logit and log(Σ exp(logit)), computed without overflow. */
export function logSumExp(values: Float32Array): { max: number; lse: number } {
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) if (values[i]! > max) max = values[i]!;
  return { max, lse: logSumExpBelow(values, max) };
}

/** log(Σ exp(value)), given the largest value. */
function logSumExpBelow(values: Float32Array, max: number): number {
  return max + Math.log(sumExpBelow(values, max));
}

// exp(x) for x ≤ 0 as exp(-k/64) from a table times exp of the remainder (under 1/64) by its Taylor
// series to the 4th power: within 1e-11 of Math.exp, three times as fast over a row of 51,865 logits,
// which every decoder step sums (the softmax's normaliser). Terms below exp(-40) are left out: 51,865 of
// them change a sum of at least 1 by under 3e-13.
const STEPS_PER_UNIT = 64;
const EXP_RANGE = 40;
const STEPS = STEPS_PER_UNIT * EXP_RANGE;
const EXP_STEPS = Float64Array.from({ length: STEPS + 1 }, (_, k) => Math.exp(-k / STEPS_PER_UNIT));

/** Σ exp(value − max) over values[from, to), each value at most `max` (-Infinity adds nothing). */
export function sumExpBelow(values: Float32Array, max: number, from = 0, to = values.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) {
    const steps = (max - values[i]!) * STEPS_PER_UNIT;
    if (!(steps < STEPS)) continue;
    const k = steps | 0;
    const rest = (steps - k) / STEPS_PER_UNIT;
    sum += EXP_STEPS[k]! * (1 - rest * (1 - rest * (0.5 - rest * (1 / 6 - rest / 24))));
  }
  return sum;
}

/**
 * Picks the next token from a logits row the decoding rules have been applied to (logit-rules.ts):
 * argmax at temperature 0 (the first of equal maxima, as transformers.js' greedy sampler), else a sample
 * from the whole distribution, as OpenAI's Whisper does (no top-k). Its log-probability is taken before
 * temperature: avg_logprob and word probabilities are made of it.
 */
export function pickToken(
  row: Float32Array,
  temperature: number,
  random: () => number = Math.random,
  /** The largest of row[0, end) when it is known already (LogitsRow.settle()): token `largest`, -1 if none. */
  known: { end: number; largest: number } = { end: 0, largest: -1 },
): { token: number; logprob: number } {
  // The largest logit is the greedy choice: the one known, unless a later one is larger. With none known
  // (largest -1), token 0 is at -Infinity or the first to look at: a plain argmax either way.
  let chosen = Math.max(known.largest, 0);
  for (let i = known.end; i < row.length; i++) if (row[i]! > row[chosen]!) chosen = i;
  const max = row[chosen]!;
  const lse = logSumExpBelow(row, max);
  if (temperature !== 0) {
    let total = 0;
    const weights = new Float64Array(row.length);
    for (let i = 0; i < row.length; i++) total += weights[i] = Math.exp((row[i]! - max) / temperature);
    let target = random() * total;
    for (chosen = 0; chosen < row.length - 1; chosen++) {
      target -= weights[chosen]!;
      if (target <= 0 && weights[chosen]! > 0) break;
    }
  }
  return { token: chosen, logprob: row[chosen]! - lse };
}
