/**
 * The filing rules of class-set intake (server/exam/intake/filing-plan.ts), a pure function, checked over
 * generated piles with fast-check and on the cases the rules name.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type PlanReading, type PlannedPlacement, type PrintedScripts, notAPageOfPaper, planFiling } from "../server/exam/intake/filing-plan";
import { encodePageCode } from "../server/exam/intake/print-code";
import { fuzzSettings } from "./support/hostile-input";

const BATCH = "ABCDEF";
const OTHER_BATCH = "GHJKMN";
const PAGE_COUNT = 4;
const code = (script: number, page: number, batchCode = BATCH) => encodePageCode({ batchCode, scriptNumber: script, page });
/** Scripts 1–4 printed (3 a spare, 4 scanned on its own); script 5 never printed. */
const printed: PrintedScripts = {
  batchCode: BATCH,
  scripts: new Map([
    [1, { scannedSeparately: false }],
    [2, { scannedSeparately: false }],
    [3, { scannedSeparately: false }],
    [4, { scannedSeparately: true }],
  ]),
};

const sheetCode = fc.oneof(
  { weight: 6, arbitrary: fc.record({ script: fc.integer({ min: 1, max: 5 }), page: fc.integer({ min: 1, max: PAGE_COUNT }) }).map(({ script, page }) => code(script, page)) },
  { weight: 1, arbitrary: fc.constant(code(1, 1, OTHER_BATCH)) },
  { weight: 2, arbitrary: fc.constantFrom(null, "MB1:ABCDEF:1:1:00", "https://example.org") },
);
/** A pile: its sheets' codes in pile order, with page ids p1, p2, … */
const pileOf = (codes: (string | null)[]): PlanReading[] => codes.map((text, index) => ({ pageId: `p${index + 1}`, pilePage: index + 1, code: text }));
const pile = fc.array(sheetCode, { maxLength: 40 }).map(pileOf);
/** Positions held before this pile: some pages of scripts 1 and 2. */
const taken = fc
  .subarray([
    [1, 1],
    [1, 3],
    [2, 2],
  ] as const)
  .map((held) => {
    const map = new Map<number, Map<number, string>>();
    for (const [script, page] of held) (map.get(script) ?? map.set(script, new Map()).get(script)!).set(page, `old-${script}-${page}`);
    return map;
  });

const targetKey = (placement: PlannedPlacement) =>
  placement.placement === "filed" ? `${placement.target.kind === "script" ? `script ${placement.target.scriptNumber}` : `new ${placement.target.index}`} @${placement.position}` : null;

const { seed, cases } = fuzzSettings(300);

describe("planFiling", () => {
  it("puts every page in exactly one place, never two pages in one position, and never over a position already held", () => {
    fc.assert(
      fc.property(pile, taken, (readings, held) => {
        const plan = planFiling(readings, printed, held, PAGE_COUNT);
        expect(plan.map((placement) => placement.pageId)).toEqual(readings.map((reading) => reading.pageId));
        const positions = plan.map(targetKey).filter((key) => key !== null);
        expect(new Set(positions).size).toBe(positions.length);
        for (const [script, pages] of held) for (const page of pages.keys()) expect(positions).not.toContain(`script ${script} @${page}`);
        for (const placement of plan) if (placement.placement === "filed") expect(placement.position).toBeGreaterThanOrEqual(1);
      }),
      { seed, numRuns: cases },
    );
  });

  it("keeps each printed page once: the first in pile order (or the one held before) is filed, every repeat points at it", () => {
    fc.assert(
      fc.property(pile, taken, (readings, held) => {
        const plan = planFiling(readings, printed, held, PAGE_COUNT);
        const keptAt = new Map<string, string>();
        for (const [script, pages] of held) for (const [page, id] of pages) keptAt.set(`${script}:${page}`, id);
        plan.forEach((placement, index) => {
          if (placement.scriptNumber === null || placement.placement === "refused" || placement.scriptNumber === 4) return;
          const key = `${placement.scriptNumber}:${placement.printedPage}`;
          const kept = keptAt.get(key);
          if (kept === undefined) {
            expect(placement).toMatchObject({ placement: "filed", target: { kind: "script", scriptNumber: placement.scriptNumber }, position: placement.printedPage });
            keptAt.set(key, readings[index]!.pageId);
          } else {
            expect(placement).toMatchObject({ placement: "duplicate", reason: "same-page", duplicateOf: kept });
          }
        });
      }),
      { seed, numRuns: cases },
    );
  });

  it("files a shuffled pile of coded pages as the ordered one: the same positions filled, as many duplicates, the same refusals", () => {
    const codedPile = fc.array(fc.oneof(sheetCode.filter((text) => text !== null && text.startsWith("MB1:") && !text.endsWith(":00"))), { maxLength: 30 });
    fc.assert(
      fc.property(codedPile.chain((codes) => fc.tuple(fc.constant(codes), fc.shuffledSubarray(codes, { minLength: codes.length, maxLength: codes.length }))), ([ordered, shuffled]) => {
        const summary = (codes: (string | null)[]) => {
          const readings = pileOf(codes);
          const plan = planFiling(readings, printed, new Map(), PAGE_COUNT);
          return {
            filled: plan.map(targetKey).filter((key) => key !== null).sort(),
            duplicates: plan.filter((placement) => placement.placement === "duplicate").length,
            refused: plan.flatMap((placement, index) => (placement.placement === "refused" ? [`${placement.reason} ${readings[index]!.code}`] : [])).sort(),
          };
        };
        expect(summary(shuffled)).toEqual(summary(ordered));
      }),
      { seed, numRuns: cases },
    );
  });

  it("refuses a page of another batch or of a script never printed, and takes no pile page for a script scanned on its own", () => {
    const plan = planFiling(pileOf([code(1, 1, OTHER_BATCH), code(5, 2), code(4, 1)]), printed, new Map(), PAGE_COUNT);
    expect(plan).toEqual([
      { pageId: "p1", placement: "refused", reason: "other-batch", scriptNumber: null, printedPage: null },
      { pageId: "p2", placement: "refused", reason: "never-printed", scriptNumber: 5, printedPage: 2 },
      { pageId: "p3", placement: "duplicate", reason: "scanned-separately", duplicateOf: null, scriptNumber: 4, printedPage: 1 },
    ]);
  });

  it("fills a torn corner: k unreadable pages between two pages of one script leaving exactly k empty positions, either way the pile runs", () => {
    const forward = planFiling(pileOf([code(1, 1), null, "MB1:damaged", code(1, 4)]), printed, new Map(), PAGE_COUNT);
    expect(forward.map(targetKey)).toEqual(["script 1 @1", "script 1 @2", "script 1 @3", "script 1 @4"]);
    const backward = planFiling(pileOf([code(2, 3), null, code(2, 1)]), printed, new Map(), PAGE_COUNT);
    expect(backward.map(targetKey)).toEqual(["script 2 @3", "script 2 @2", "script 2 @1"]);
    // A page held before counts as filled: one empty position left for one unreadable page.
    const held = new Map([[1, new Map([[2, "old"]])]]);
    expect(planFiling(pileOf([code(1, 1), null, code(1, 4)]), printed, held, PAGE_COUNT).map(targetKey)).toEqual(["script 1 @1", "script 1 @3", "script 1 @4"]);
  });

  it("cuts every other run of unreadable pages into new scripts of the template's page count, in pile order", () => {
    // Two empty positions between pages 1 and 4 of script 1 but one unreadable page: not a torn corner.
    const plan = planFiling(pileOf([code(1, 1), null, code(1, 4), null, null, null, null, null, code(2, 1), null]), printed, new Map(), PAGE_COUNT);
    expect(plan.map(targetKey)).toEqual(["script 1 @1", "new 0 @1", "script 1 @4", "new 1 @1", "new 1 @2", "new 1 @3", "new 1 @4", "new 2 @1", "script 2 @1", "new 3 @1"]);
    // Between pages of two scripts: new scripts too; an unknown page count keeps a run whole.
    expect(planFiling(pileOf([code(1, 1), null, null, code(2, 2)]), printed, new Map(), null).map(targetKey)).toEqual(["script 1 @1", "new 0 @1", "new 0 @2", "script 2 @2"]);
  });

  it("files an unreadable page with no printed script or page: it names neither", () => {
    const [placement] = planFiling(pileOf([null]), printed, new Map(), PAGE_COUNT);
    expect(placement).toEqual({ pageId: "p1", placement: "filed", target: { kind: "new", index: 0 }, position: 1, scriptNumber: null, printedPage: null });
  });

  it("refuses a code naming a page beyond the paper (page 999 of 4), whatever the page, and files every page of it", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999 }), fc.integer({ min: 1, max: 3 }), fc.option(fc.integer({ min: 1, max: 999 }), { nil: null }), (page, script, pageCount) => {
        const [placement] = planFiling(pileOf([code(script, page)]), printed, new Map(), pageCount);
        if (pageCount !== null && page > pageCount) {
          expect(placement).toEqual({ pageId: "p1", placement: "refused", reason: "beyond-paper", scriptNumber: script, printedPage: page });
        } else {
          expect(placement).toMatchObject({ placement: "filed", target: { kind: "script", scriptNumber: script }, position: page });
        }
      }),
      { seed, numRuns: cases },
    );
    expect(notAPageOfPaper(999, 4)).toBe("Page 999 is not a page of this 4-page paper");
  });
});
