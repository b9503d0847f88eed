/**
 * Agreement between a first and a second (blind) marker, over pairs of marks of one question. Pure: no
 * database, no clock; agreement.ts feeds it and tests/moderation-stats.test.ts checks it
 * against values computed by hand. Formulas (d = second − first, n pairs):
 * - mean difference = Σd / n (positive: the second marker gives more);
 * - mean absolute difference = Σ|d| / n;
 * - within tolerance = #{|d| ≤ tolerance} / n (a share, 0..1);
 * - quadratic-weighted kappa = 1 − mean(d²) / E, where E = (1/n²) Σᵢ Σⱼ (firstᵢ − secondⱼ)² is the
 *   mean squared difference expected by chance (every first mark against every second mark, which is
 *   the product of the two markers' marginals). With marks on the scale 0..max this is Cohen's κ with
 *   weights (i − j)² / max² (the max² cancels), and it takes half marks as they are. E equals
 *   var(first) + var(second) + (mean first − mean second)² (population variances), which is what is
 *   computed. Null with a reason when n < 2, when the question is worth no marks, or when E = 0 (every
 *   mark of both markers the same: agreement by chance is total, κ is 0/0).
 * - drift: pairs in the order of the first mark's time; the least-squares slope of d against the
 *   position (0, 1, …, n − 1), given per 10 scripts (slope × 10), null below 3 pairs; and the mean d of
 *   each block of DRIFT_BLOCK consecutive pairs (the last block may be shorter).
 */

export type MarkPair = {
  first: number;
  second: number;
  /** When the first mark was made (ms since the epoch): the order of the marking session. */
  firstMarkedAt: number;
};

export type Kappa = { value: number; reason: null } | { value: null; reason: string };

type DriftBlock = { from: number; to: number; n: number; mean_difference: number };

export type Agreement = {
  n: number;
  mean_difference: number | null;
  mean_absolute_difference: number | null;
  within_tolerance: number | null;
  kappa: number | null;
  kappa_note: string | null;
  drift_per_10: number | null;
  drift_blocks: DriftBlock[];
};

/** Pairs per drift block. */
const DRIFT_BLOCK = 5;

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * Whether a difference of marks counts as agreement: at most the tolerance, with a hundredth of slack
 * (marks are stored in hundredths, floats are not). A difference that does not is one to reconcile.
 */
export const withinTolerance = (difference: number, tolerance: number) => Math.abs(difference) <= tolerance + 1e-9;

/** Quadratic-weighted Cohen's kappa of the pairs of a question worth `max` marks. */
export function quadraticKappa(pairs: { first: number; second: number }[], max: number): Kappa {
  if (max <= 0) return { value: null, reason: "The question is worth no marks" };
  if (pairs.length < 2) return { value: null, reason: "Fewer than two pairs" };
  const firsts = pairs.map((pair) => pair.first);
  const seconds = pairs.map((pair) => pair.second);
  const meanFirst = mean(firsts);
  const meanSecond = mean(seconds);
  const variance = (values: number[], centre: number) => mean(values.map((value) => (value - centre) ** 2));
  const expected = variance(firsts, meanFirst) + variance(seconds, meanSecond) + (meanFirst - meanSecond) ** 2;
  // Below float noise of marks in hundredths: every mark of both markers is the same.
  if (expected < 1e-12) return { value: null, reason: "Every mark is the same: agreement by chance is total" };
  const observed = mean(pairs.map((pair) => (pair.second - pair.first) ** 2));
  // Clamped against rounding only: |2 cov| ≤ var₁ + var₂ ≤ E keeps the value within [-1, 1].
  return { value: Math.min(1, Math.max(-1, 1 - observed / expected)), reason: null };
}

/** Least-squares slope of y against x. */
function slope(ys: number[]): number {
  const xs = ys.map((_, index) => index);
  const meanX = mean(xs);
  const meanY = mean(ys);
  const covariance = xs.reduce((sum, x, index) => sum + (x - meanX) * (ys[index]! - meanY), 0);
  const varianceX = xs.reduce((sum, x) => sum + (x - meanX) ** 2, 0);
  return covariance / varianceX;
}

/** Agreement of the pairs of one question (or of one marker's pairs of one question) worth `max` marks. */
export function agreementOf(pairs: MarkPair[], max: number, tolerance: number): Agreement {
  const n = pairs.length;
  const kappa = quadraticKappa(pairs, max);
  if (n === 0) {
    return {
      n,
      mean_difference: null,
      mean_absolute_difference: null,
      within_tolerance: null,
      kappa: null,
      kappa_note: kappa.reason,
      drift_per_10: null,
      drift_blocks: [],
    };
  }
  const ordered = [...pairs].sort((a, b) => a.firstMarkedAt - b.firstMarkedAt);
  const differences = ordered.map((pair) => pair.second - pair.first);
  const blocks: DriftBlock[] = [];
  for (let from = 0; from < n; from += DRIFT_BLOCK) {
    const block = differences.slice(from, from + DRIFT_BLOCK);
    blocks.push({ from: from + 1, to: from + block.length, n: block.length, mean_difference: mean(block) });
  }
  return {
    n,
    mean_difference: mean(differences),
    mean_absolute_difference: mean(differences.map(Math.abs)),
    within_tolerance: differences.filter((difference) => withinTolerance(difference, tolerance)).length / n,
    kappa: kappa.value,
    kappa_note: kappa.reason,
    drift_per_10: n >= 3 ? slope(differences) * 10 : null,
    drift_blocks: blocks,
  };
}
