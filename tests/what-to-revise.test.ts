/**
 * What to revise (issue 35, item 3): the ranking of specification points by marks lost, as pure
 * properties over generated scripts (marks in hundredths, as numeric(8,2) stores them).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type MarkedQuestion, whatToRevise } from "../server/exam/returns/what-to-revise";
import { fuzzSettings } from "./support/hostile-input";

const settings = fuzzSettings(300);
const marks = fc.integer({ min: 0, max: 2000 }).map((hundredths) => hundredths / 100);
const refs = fc.constantFrom("8300/N1", "8300/N2", "8300/A2", "8300/G1", " 8300/N1 ", null, "", "  ");

/** A marked question: awarded within 0..max, or not marked yet. */
const question: fc.Arbitrary<MarkedQuestion> = fc
  .tuple(fc.string({ minLength: 1, maxLength: 4 }), refs, marks, fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }))
  .map(([label, specRef, maxMarks, share]) => ({
    label,
    specRef,
    maxMarks,
    awardedMarks: share === null ? null : Math.round(maxMarks * share * 100) / 100,
  }));
const script = fc.array(question, { maxLength: 12 });

const lostOf = (questions: readonly MarkedQuestion[]) =>
  questions.filter((q) => q.specRef?.trim() && q.awardedMarks !== null).reduce((sum, q) => sum + Math.round(q.maxMarks * 100) - Math.round(q.awardedMarks! * 100), 0);

describe("what to revise", () => {
  it("ranks by marks lost, then by share lost, then by reference; never lists a point where nothing was lost", () => {
    fc.assert(
      fc.property(script, (questions) => {
        const ranked = whatToRevise(questions);
        for (const point of ranked) {
          expect(point.marks_lost).toBeGreaterThan(0);
          expect(point.share_lost).toBeGreaterThan(0);
          expect(point.share_lost).toBeLessThanOrEqual(1);
          expect(Number.isFinite(point.share_lost)).toBe(true);
        }
        for (let index = 1; index < ranked.length; index++) {
          const [before, after] = [ranked[index - 1]!, ranked[index]!];
          const inOrder =
            before.marks_lost > after.marks_lost ||
            (before.marks_lost === after.marks_lost &&
              (before.share_lost > after.share_lost || (before.share_lost === after.share_lost && before.spec_ref < after.spec_ref)));
          expect(inOrder).toBe(true);
        }
      }),
      settings,
    );
  });

  it("accounts for every mark lost on a question with a reference, once, in hundredths", () => {
    fc.assert(
      fc.property(script, (questions) => {
        const ranked = whatToRevise(questions);
        expect(Math.round(ranked.reduce((sum, point) => sum + point.marks_lost, 0) * 100)).toBe(lostOf(questions));
        expect(new Set(ranked.map((point) => point.spec_ref)).size).toBe(ranked.length);
      }),
      settings,
    );
  });

  it("gives the same ranking whatever the order of the questions (ties broken by the reference)", () => {
    fc.assert(
      fc.property(
        script.chain((questions) => fc.tuple(fc.constant(questions), fc.shuffledSubarray(questions, { minLength: questions.length, maxLength: questions.length }))),
        ([questions, shuffled]) => {
          const strip = (points: ReturnType<typeof whatToRevise>) => points.map(({ questions: _labels, ...point }) => point);
          expect(strip(whatToRevise(shuffled))).toEqual(strip(whatToRevise(questions)));
        },
      ),
      settings,
    );
  });

  it("ignores questions without a reference and questions not marked yet", () => {
    fc.assert(
      fc.property(script, fc.array(question, { maxLength: 6 }), (questions, extra) => {
        const ignored = extra.map((q, index) => (index % 2 === 0 ? { ...q, specRef: null } : { ...q, specRef: "8300/N1", awardedMarks: null }));
        expect(whatToRevise([...questions, ...ignored]).map(({ questions: _labels, ...point }) => point)).toEqual(
          whatToRevise(questions).map(({ questions: _labels, ...point }) => point),
        );
      }),
      settings,
    );
  });

  it("never divides by a point worth zero marks", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("8300/N1", "8300/A2"), { minLength: 1, maxLength: 5 }), (specRefs) => {
        expect(whatToRevise(specRefs.map((specRef, index) => ({ label: String(index), specRef, maxMarks: 0, awardedMarks: 0 })))).toEqual([]);
      }),
      settings,
    );
  });

  it("names an example: the point with the most lost first, a tie on marks goes to the larger share", () => {
    const ranked = whatToRevise([
      { label: "1a", specRef: "8300/N1", maxMarks: 3, awardedMarks: 1 },
      { label: "1b", specRef: "8300/N1", maxMarks: 2, awardedMarks: 2 },
      { label: "2", specRef: "8300/A2", maxMarks: 2, awardedMarks: 0 },
      { label: "3", specRef: "8300/G1", maxMarks: 4, awardedMarks: 3.5 },
      { label: "4", specRef: null, maxMarks: 10, awardedMarks: 0 },
    ]);
    expect(ranked.map((point) => [point.spec_ref, point.marks_lost, point.questions])).toEqual([
      ["8300/A2", 2, ["2"]],
      ["8300/N1", 2, ["1a", "1b"]],
      ["8300/G1", 0.5, ["3"]],
    ]);
  });
});
