/**
 * The pile pass reads a coded page's areas in the same worker call as its code (issue 36: reading ticks
 * and blanks adds ≤ 25 % to intake): readPile with the batch's area layout gives, beside each page's
 * code, the reading readAreas gives on its own, through the real imaging worker, on a printed, pen-answered
 * and scanned class set (tests/support/tick-paper.ts, pen-answers.ts, scanned-pile.ts). A pile read
 * without a layout reads as before; an absurd layout is refused with a sentence.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../server/errors";
import { workerImaging } from "../server/exam/intake/imaging";
import type { PageReading } from "../server/exam/intake/page-reading";
import type { AreasReading, PileAreaLayout } from "../server/exam/ticks/reading";
import { timeoutFor } from "./support/busy-machine";
import { type PageTruth, areasInput, batchCodeOf, penAnswers, score } from "./support/pen-answers";
import { type PileTruth, type ScannedPile, scanPile } from "./support/scanned-pile";
import { type TickPaper, tickPaper } from "./support/tick-paper";

/** CPU-seconds a page costs: printing and answering it, scanning it, reading its code and areas twice. */
const PAGE_COST = 2;

type Printed = Extract<PileTruth, { kind: "printed" }>;

let paper: TickPaper;
let pile: ScannedPile;
let truths: PageTruth[];
const batchCode = batchCodeOf(361);

/** The tick paper's areas as the pile job gives them (tests/support/tick-paper.ts records them as the template holds them). */
const layoutOf = (paper: TickPaper, code = batchCode): PileAreaLayout => ({
  batchCode: code,
  paper: paper.bytes,
  keepClear: paper.keepClear,
  pages: paper.pages.map(({ page, tickAreas, writtenAreas }) => ({ page, tickAreas, writtenAreas: writtenAreas.map(({ kind: _kind, ...area }) => area) })),
});

async function readAll(pdf: Uint8Array, options?: Parameters<ReturnType<typeof workerImaging>["readPile"]>[1]): Promise<PageReading[]> {
  const readings: PageReading[] = [];
  for await (const reading of workerImaging().readPile(pdf, options)) readings.push(reading);
  return readings;
}

/** What a reading decides (answers, box states, blank states), without the ink figures. */
const decisions = (reading: AreasReading) => ({
  alignment: reading.alignment,
  tickAreas: reading.tickAreas.map((area) => ({ id: area.id, answer: area.answer, states: area.boxes.map((box) => box.state), reason: area.reason })),
  writtenAreas: reading.writtenAreas.map((area) => ({ id: area.id, blank: area.blank, reason: area.reason })),
});

beforeAll(async () => {
  paper = await tickPaper({ pages: 3 });
  const { pdf: printed } = await workerImaging().stamp(paper.bytes, batchCode, [1, 2].map((scriptNumber) => ({ scriptNumber, heading: `Student ${scriptNumber}` })), paper.keepClear);
  const answered = await penAnswers(printed, paper, 361);
  truths = answered.truth;
  // 6 pages: two upside down, one whose code is torn off (read on its own later, by its content).
  pile = await scanPile(answered.pdf, { seed: 361, pagesPerScript: 3, duplicate: false, missing: false, upsideDown: 2, tornCodes: [4], dpi: { min: 150, max: 300 } });
}, timeoutFor(6 * PAGE_COST));

describe("the pile pass reads a coded page's areas beside its code", () => {
  it(
    "gives each coded page the reading readAreas gives it on its own, and none to a page without its code",
    async () => {
      const imaging = workerImaging();
      const withAreas = await readAll(pile.pdf, { areas: layoutOf(paper) });
      expect(withAreas).toHaveLength(6);
      const pages: { truth: PageTruth; reading: AreasReading }[] = [];
      for (const page of withAreas) {
        const truth = pile.truth[page.pilePage - 1] as Printed;
        if (truth.torn) {
          expect(page.code).toBeNull();
          expect(page.areaReading).toBeNull();
          continue;
        }
        expect(page.areaReading?.page).toBe(truth.page);
        const alone = await imaging.readAreas(areasInput(paper, page, truth, batchCode));
        const fold = page.areaReading!.reading;
        expect(fold.alignment.by).toBe("code");
        // The same decisions; the ink within a few hundredths: the pass reads the pixels its code was read on (the scan's
        // resolution), readAreas the page decoded at half from 200 dpi, and each finds the code's corners on its own pixels.
        expect(decisions(fold)).toEqual(decisions(alone));
        const inks = (reading: AreasReading) => [...reading.tickAreas.flatMap((area) => area.boxes.map((box) => box.ink)), ...reading.writtenAreas.map((area) => area.ink)];
        const aloneInks = inks(alone);
        inks(fold).forEach((ink, index) => expect(Math.abs(ink - aloneInks[index]!)).toBeLessThan(0.05));
        pages.push({ truth: truths[truth.printedPage - 1]!, reading: fold });
      }
      expect(pages).toHaveLength(5);
      const figures = score(pages);
      expect(figures.wrongDetails).toEqual([]);
      expect(figures.falseBlankDetails).toEqual([]);
      expect(figures.answersDecided / figures.answers).toBeGreaterThanOrEqual(0.95);
    },
    timeoutFor(12 * PAGE_COST),
  );

  it(
    "reads a pile as before without a layout, and reads no area of a page whose code is another batch's",
    async () => {
      const plain = await readAll(pile.pdf);
      for (const page of plain) expect("areaReading" in page).toBe(false);
      const otherBatch = await readAll(pile.pdf, { areas: layoutOf(paper, batchCodeOf(362)) });
      expect(otherBatch.map((page) => page.areaReading)).toEqual(plain.map(() => null));
      // The codes and turns are the same with or without the areas.
      expect(otherBatch.map(({ pilePage, code, rotation }) => ({ pilePage, code, rotation }))).toEqual(plain.map(({ pilePage, code, rotation }) => ({ pilePage, code, rotation })));
    },
    timeoutFor(12 * 0.5),
  );

  it(
    "refuses an absurd layout with a sentence before any page is read, and reads the pile after",
    async () => {
      const imaging = workerImaging();
      const good = layoutOf(paper);
      const refusal = async (layout: PileAreaLayout) => {
        const error = await readAll(pile.pdf, { areas: layout }).then(
          () => null,
          (reason: unknown) => reason,
        );
        expect(error).toBeInstanceOf(AppError);
        expect((error as AppError).code).toBe("invalid");
        expect((error as AppError).message).toMatch(/^[A-Z].*\.$/);
      };
      const offPage = fc.oneof(
        fc.double({ min: 1.0001, max: 1e9, noNaN: true }),
        fc.double({ min: -1e9, max: -0.0001, noNaN: true }),
        fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
      );
      const field = fc.constantFrom("x", "y", "width", "height");
      const absurd = fc.oneof(
        // A box, a written area or a place kept clear off the page.
        fc.tuple(offPage, field, fc.constantFrom("box", "written", "kept")).map(([value, key, where]): PileAreaLayout => {
          const [first, ...rest] = good.pages;
          if (where === "kept") return { ...good, keepClear: good.keepClear.map((place, index) => (index === 0 ? { ...place, [key]: value } : place)) };
          if (where === "box") {
            const [area, ...areas] = first!.tickAreas;
            return { ...good, pages: [{ ...first!, tickAreas: [{ ...area!, boxes: area!.boxes.map((box, index) => (index === 0 ? { ...box, [key]: value } : box)) }, ...areas] }, ...rest] };
          }
          const [area, ...areas] = first!.writtenAreas;
          return { ...good, pages: [{ ...first!, writtenAreas: [{ ...area!, [key]: value }, ...areas] }, ...rest] };
        }),
        // A page the paper does not have.
        fc.oneof(fc.integer({ min: 4, max: 1e6 }), fc.integer({ min: -1e6, max: 0 }), fc.double({ min: 1.1, max: 2.9, noNaN: true })).map((page): PileAreaLayout => ({ ...good, pages: [{ ...good.pages[0]!, page }] })),
        // Too many boxes, areas or pages; no boxes; a page twice; a code that is not a batch code.
        fc.constantFrom<PileAreaLayout>(
          { ...good, pages: [{ ...good.pages[0]!, tickAreas: [{ id: "q", boxes: [] }] }] },
          { ...good, pages: [{ ...good.pages[0]!, tickAreas: Array.from({ length: 101 }, () => good.pages[0]!.tickAreas[0]!) }] },
          { ...good, pages: [{ ...good.pages[0]!, tickAreas: [{ id: "q", boxes: Array.from({ length: 27 }, (_, index) => ({ ...good.pages[0]!.tickAreas[0]!.boxes[0]!, label: String(index) })) }] }] },
          { ...good, pages: [good.pages[0]!, good.pages[0]!] },
          { ...good, pages: Array.from({ length: 1000 }, (_, index) => ({ page: index + 1, tickAreas: [], writtenAreas: [] })) },
          { ...good, batchCode: "not a code" },
          { ...good, paper: new TextEncoder().encode("not a PDF at all") },
        ),
      );
      await fc.assert(fc.asyncProperty(absurd, refusal), { numRuns: 20 });
      // After all that, the worker still reads the pile and its areas.
      const [first] = await readAll(pile.pdf, { areas: good, maxPages: 6 });
      expect(first!.code === null || first!.areaReading !== undefined).toBe(true);
      void imaging;
    },
    timeoutFor(8 * PAGE_COST),
  );
});
