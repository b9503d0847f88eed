import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { missingPages, pagesPhrase, placePages, questionPagesMissing } from "../components/marking/page-placement";
import { fuzzSettings } from "./support/hostile-input";

const { seed, cases } = fuzzSettings(300);

/** A paper of 1–12 pages and the pages of it scanned (any subset, in page order, as filing leaves them). */
const scannedPaper = fc
  .integer({ min: 1, max: 12 })
  .chain((paper) => fc.tuple(fc.constant(paper), fc.subarray(Array.from({ length: paper }, (_, index) => index + 1))));

describe("placing a scan's pages by their page number", () => {
  it("a four-page paper without page 2: page 2 is missing where it belongs, pages 3 and 4 are the scan's 2 and 3", () => {
    expect(placePages(3, [1, 3, 4], 4)).toEqual([
      { paperPage: 1, scanPage: 1 },
      { paperPage: 2, scanPage: null },
      { paperPage: 3, scanPage: 2 },
      { paperPage: 4, scanPage: 3 },
    ]);
  });

  it("every page of the paper once, in order; each scanned page on its own page number; the missing ones are exactly the others", () => {
    fc.assert(
      fc.property(scannedPaper, ([paper, scanned]) => {
        const placed = placePages(scanned.length, scanned, paper);
        expect(placed.map((page) => page.paperPage)).toEqual(Array.from({ length: paper }, (_, index) => index + 1));
        for (const [index, page] of scanned.entries()) expect(placed[page - 1]!.scanPage).toBe(index + 1);
        expect(missingPages(placed)).toEqual(placed.map((page) => page.paperPage).filter((page) => !scanned.includes(page)));
        // No page of the scan is shown twice or lost.
        expect(placed.flatMap((page) => (page.scanPage === null ? [] : [page.scanPage]))).toEqual(scanned.map((_, index) => index + 1));
      }),
      { seed, numRuns: cases },
    );
  });

  it("a scan uploaded on its own is read in order: its pages after the last are missing, pages beyond the paper still shown", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 12 }), fc.option(fc.integer({ min: 1, max: 12 }), { nil: null }), (scanPages, paper) => {
        const placed = placePages(scanPages, null, paper);
        expect(placed).toHaveLength(Math.max(scanPages, paper ?? 0));
        for (const page of placed) expect(page.scanPage).toBe(page.paperPage <= scanPages ? page.paperPage : null);
      }),
      { seed, numRuns: cases },
    );
  });

  it("page numbers that do not fit the scan's page count are not trusted: the pages are read in order", () => {
    fc.assert(
      fc.property(scannedPaper, fc.integer({ min: 0, max: 12 }), ([paper, scanned], scanPages) => {
        fc.pre(scanPages !== scanned.length);
        expect(placePages(scanPages, scanned, paper)).toEqual(placePages(scanPages, null, paper));
      }),
      { seed, numRuns: cases },
    );
  });

  it("a question is unmarkable from the scan on the missing pages of its response areas only", () => {
    const areas = [
      { question_id: "q1", kind: "response", page: 1 },
      { question_id: "q2", kind: "response", page: 2 },
      { question_id: "q2", kind: "context", page: 1 },
      { question_id: "q3", kind: "response", page: 3 },
      { question_id: "q3", kind: "response", page: 2 },
      { question_id: "q4", kind: "context", page: 2 },
    ];
    expect(questionPagesMissing(areas, "q1", [2])).toEqual([]);
    expect(questionPagesMissing(areas, "q2", [1])).toEqual([]);
    expect(questionPagesMissing(areas, "q2", [1, 2])).toEqual([2]);
    expect(questionPagesMissing(areas, "q3", [2, 3])).toEqual([2, 3]);
    expect(questionPagesMissing(areas, "q4", [2])).toEqual([2]);
    expect(pagesPhrase([2])).toBe("Page 2");
    expect(pagesPhrase([2, 3])).toBe("Pages 2 and 3");
    expect(pagesPhrase([2, 3, 5])).toBe("Pages 2, 3 and 5");
  });
});
