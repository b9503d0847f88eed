import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type MarkPair, agreementOf, quadraticKappa, withinTolerance } from "../server/exam/moderation/agreement-stats";

const pairsOf = (marks: [number, number][]): MarkPair[] => marks.map(([first, second], index) => ({ first, second, firstMarkedAt: index }));

/** The textbook form, over a k×k table of integer categories 0..max: κ = 1 − Σ wᵢⱼ Oᵢⱼ / Σ wᵢⱼ Eᵢⱼ, wᵢⱼ = (i − j)² / max². */
function tableKappa(pairs: { first: number; second: number }[], max: number): number {
  const k = max + 1;
  const observed = Array.from({ length: k }, () => new Array<number>(k).fill(0));
  for (const { first, second } of pairs) observed[first]![second]! += 1 / pairs.length;
  const rows = observed.map((row) => row.reduce((a, b) => a + b, 0));
  const columns = observed[0]!.map((_, j) => observed.reduce((sum, row) => sum + row[j]!, 0));
  let weightedObserved = 0;
  let weightedExpected = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      const weight = (i - j) ** 2 / max ** 2;
      weightedObserved += weight * observed[i]![j]!;
      weightedExpected += weight * rows[i]! * columns[j]!;
    }
  }
  return 1 - weightedObserved / weightedExpected;
}

describe("agreement of two markers", () => {
  it("matches the hand-computed values of a fixed set of five pairs on a question out of 4", () => {
    // (first, second): (2,2) (3,2) (1,2) (4,4) (0,1); d = second − first = 0, −1, 1, 0, 1.
    const pairs = pairsOf([
      [2, 2],
      [3, 2],
      [1, 2],
      [4, 4],
      [0, 1],
    ]);
    const agreement = agreementOf(pairs, 4, 0);
    expect(agreement.n).toBe(5);
    // Σd = 1 → 1/5.
    expect(agreement.mean_difference).toBeCloseTo(0.2, 12);
    // Σ|d| = 3 → 3/5.
    expect(agreement.mean_absolute_difference).toBeCloseTo(0.6, 12);
    // |d| ≤ 0: pairs 1 and 4 → 2/5.
    expect(agreement.within_tolerance).toBeCloseTo(0.4, 12);
    // |d| ≤ 1: all five.
    expect(agreementOf(pairs, 4, 1).within_tolerance).toBe(1);
    // Firsts 2,3,1,4,0: mean 2, variance (0+1+1+4+4)/5 = 2. Seconds 2,2,2,4,1: mean 2.2, variance
    // (0.04+0.04+0.04+3.24+1.44)/5 = 0.96. E = 2 + 0.96 + (2 − 2.2)² = 3. By the definition as well:
    // Σⱼ (aᵢ − bⱼ)² for aᵢ = 2,3,1,4,0 is 5, 8, 12, 21, 29 → 75 / 25 = 3. Observed mean d² = 3/5 = 0.6.
    // κ = 1 − 0.6 / 3 = 0.8.
    expect(agreement.kappa).toBeCloseTo(0.8, 12);
    expect(agreement.kappa_note).toBeNull();
    expect(tableKappa(pairs, 4)).toBeCloseTo(0.8, 12);
    // Drift: d by position 0..4 = 0, −1, 1, 0, 1; mean x 2, mean d 0.2;
    // Σ(x − 2)(d − 0.2) = (−2)(−0.2) + (−1)(−1.2) + 0 + (1)(−0.2) + (2)(0.8) = 3; Σ(x − 2)² = 10;
    // slope 0.3 per script → 3 per 10 scripts. One block of five, mean 0.2.
    expect(agreement.drift_per_10).toBeCloseTo(3, 12);
    expect(agreement.drift_blocks).toEqual([{ from: 1, to: 5, n: 5, mean_difference: expect.closeTo(0.2, 12) as number }]);
  });

  it("orders the pairs by the first mark's time for drift, in blocks of five", () => {
    // Given out of order; by time the differences are 0, 0, 0, 0, 0, 1, 1.
    const byTime: [number, number, number][] = [
      [60, 3, 4],
      [10, 2, 2],
      [50, 1, 1],
      [20, 0, 0],
      [70, 1, 2],
      [30, 5, 5],
      [40, 4, 4],
    ];
    const agreement = agreementOf(
      byTime.map(([firstMarkedAt, first, second]) => ({ first, second, firstMarkedAt })),
      5,
      0,
    );
    expect(agreement.drift_blocks).toEqual([
      { from: 1, to: 5, n: 5, mean_difference: 0 },
      { from: 6, to: 7, n: 2, mean_difference: 1 },
    ]);
    // x 0..6, mean 3; Σ(x − 3)·d = (5 − 3)·1 + (6 − 3)·1 = 5; Σ(x − 3)² = 9+4+1+0+1+4+9 = 28 → 5/28 per script.
    expect(agreement.drift_per_10).toBeCloseTo(50 / 28, 12);
    // 5 of 7 within 0.
    expect(agreement.within_tolerance).toBeCloseTo(5 / 7, 12);
  });

  it("gives κ = −1 for a complete reversal and 1 for identical marks with variance", () => {
    // (0,4) (4,0): d² = 16 each; means 2 and 2, variances 4 and 4 → E = 8; κ = 1 − 16/8 = −1.
    expect(quadraticKappa(pairsOf([[0, 4], [4, 0]]), 4)).toEqual({ value: -1, reason: null });
    expect(quadraticKappa(pairsOf([[1, 1], [3, 3], [2.5, 2.5]]), 4)).toEqual({ value: 1, reason: null });
  });

  it("says why there is no κ: fewer than two pairs, a question worth nothing, a single mark everywhere", () => {
    expect(quadraticKappa(pairsOf([[2, 3]]), 4)).toEqual({ value: null, reason: "Fewer than two pairs" });
    expect(quadraticKappa(pairsOf([[0, 0], [0, 0]]), 0)).toEqual({ value: null, reason: "The question is worth no marks" });
    expect(quadraticKappa(pairsOf([[3, 3], [3, 3], [3, 3]]), 4)).toEqual({ value: null, reason: "Every mark is the same: agreement by chance is total" });
    const none = agreementOf([], 4, 1);
    expect(none).toMatchObject({ n: 0, mean_difference: null, within_tolerance: null, kappa: null, drift_per_10: null, drift_blocks: [] });
    // Two pairs: a mean and a κ, no slope.
    expect(agreementOf(pairsOf([[1, 2], [3, 3]]), 4, 0).drift_per_10).toBeNull();
  });

  const integerPairs = (max: number) => fc.array(fc.tuple(fc.integer({ min: 0, max }), fc.integer({ min: 0, max })), { minLength: 2, maxLength: 40 });

  it("is the textbook table κ for integer marks, symmetric, and within [-1, 1]", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }).chain((max) => fc.tuple(fc.constant(max), integerPairs(max))),
        ([max, marks]) => {
          const kappa = quadraticKappa(pairsOf(marks), max);
          const swapped = quadraticKappa(pairsOf(marks.map(([a, b]) => [b, a])), max);
          if (kappa.value === null) {
            expect(new Set(marks.flat()).size).toBe(1);
            return;
          }
          expect(kappa.value).toBeGreaterThanOrEqual(-1);
          expect(kappa.value).toBeLessThanOrEqual(1);
          expect(swapped.value).toBeCloseTo(kappa.value, 9);
          expect(tableKappa(pairsOf(marks), max)).toBeCloseTo(kappa.value, 9);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("counts a difference as agreement exactly when it is at most the tolerance in hundredths, and within_tolerance is the share of those", () => {
    // Marks and tolerances are stored in hundredths; their differences as floats are not (1.3 − 0.1 > 1.2).
    const hundredths = (max: number) => fc.integer({ min: 0, max });
    fc.assert(
      fc.property(fc.array(fc.tuple(hundredths(2000), hundredths(2000)), { minLength: 1, maxLength: 30 }), hundredths(500), (marks, tolerance) => {
        const pairs = marks.map(([first, second]) => [first / 100, second / 100] as [number, number]);
        const agreeing = marks.filter(([first, second]) => Math.abs(second - first) <= tolerance);
        for (const [[first, second], [firstHundredths, secondHundredths]] of pairs.map((pair, index) => [pair, marks[index]!] as const)) {
          const expected = Math.abs(secondHundredths - firstHundredths) <= tolerance;
          // As agreementOf takes it (a float difference), and as a difference row carries it (rounded to hundredths).
          expect(withinTolerance(second - first, tolerance / 100)).toBe(expected);
          expect(withinTolerance(Number((second - first).toFixed(2)), tolerance / 100)).toBe(expected);
        }
        expect(agreementOf(pairsOf(pairs), 20, tolerance / 100).within_tolerance).toBe(agreeing.length / marks.length);
      }),
      { numRuns: 500 },
    );
  });

  it("gives κ = 1 when the second marker agrees on every mark and the marks vary", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 2, maxLength: 30 }), (marks) => {
        fc.pre(new Set(marks).size > 1);
        expect(quadraticKappa(pairsOf(marks.map((mark) => [mark, mark])), 10).value).toBe(1);
        const agreement = agreementOf(pairsOf(marks.map((mark) => [mark, mark])), 10, 0);
        expect(agreement).toMatchObject({ mean_difference: 0, mean_absolute_difference: 0, within_tolerance: 1 });
      }),
      { numRuns: 200 },
    );
  });
});
