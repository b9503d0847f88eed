/** The largest logit and log(Σ exp(logit)), computed without overflow. */
export function logSumExp(values: Float32Array): { max: number; lse: number } {
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) if (values[i]! > max) max = values[i]!;
  return { max, lse: logSumExpBelow(values, max) };
}

/** log(Σ exp(value)), given the largest value. */
function logSumExpBelow(values: Float32Array, max: number): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += Math.exp(values[i]! - max);
  return max + Math.log(sum);
}

/**
 * Picks the next token from a logits row the decoding rules have been applied to (logit-rules.ts):
 * argmax at temperature 0 (the first of equal maxima, as transformers.js' greedy sampler), else a sample
 * from the whole distribution, as OpenAI's Whisper does (no top-k). Its log-probability is taken before
 * temperature: avg_logprob and word probabilities are made of it.
 */
export function pickToken(row: Float32Array, temperature: number, random: () => number = Math.random): { token: number; logprob: number } {
  // One pass finds the largest logit and, with it, the greedy choice.
  let chosen = 0;
  for (let i = 1; i < row.length; i++) if (row[i]! > row[chosen]!) chosen = i;
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
