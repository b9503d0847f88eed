/**
 * Reading tick boxes and finding blank answers on scanned scripts (issue 36), through the real imaging
 * worker: a three-page test paper (tests/support/tick-paper.ts) printed with its codes, answered as
 * people answer (tests/support/pen-answers.ts: ticks, crosses, pencil, corrections, stray marks, words,
 * a single digit, blank areas) and scanned as a copier would (tests/support/scanned-pile.ts). The
 * promise itself is asserted: no decided answer is wrong, no written area is called blank, and most
 * answers are decided, on upside-down pages and a page whose code is torn off too.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../server/errors";
import { workerImaging } from "../server/exam/intake/imaging";
import { renderPageGrey } from "../server/exam/intake/imaging/pdfjs";
import { readPageCode } from "../server/exam/intake/imaging/qr";
import { printedCodeRect, stampScripts } from "../server/exam/intake/stamp";
import type { PageReading } from "../server/exam/intake/page-reading";
import type { AreasReading } from "../server/exam/ticks/reading";
import { CORRECTIONS_CONVENTION } from "../server/exam/ticks/read-ticks";
import { timeoutFor } from "./support/busy-machine";
import { rawPdf } from "./support/hostile-files";
import { type PageTruth, areasInput, batchCodeOf, penAnswers, score } from "./support/pen-answers";
import { type PileTruth, type ScanOptions, scanPile } from "./support/scanned-pile";
import { type TickPaper, tickPaper } from "./support/tick-paper";

/** CPU-seconds a page costs: printing and answering it, scanning it, reading its code, reading its areas. */
const PAGE_COST = 1.5;

let paper: TickPaper;

beforeAll(async () => {
  paper = await tickPaper({ pages: 3 });
});

type Printed = Extract<PileTruth, { kind: "printed" }>;

/** Prints `scripts` scripts, answers them (seed), scans them and reads every page. */
async function readClassSet(scripts: number, seed: number, scan: Partial<ScanOptions> = {}, mix?: Parameters<typeof penAnswers>[3]) {
  const imaging = workerImaging();
  const batchCode = batchCodeOf(seed);
  const { pdf: printed } = await imaging.stamp(paper.bytes, batchCode, Array.from({ length: scripts }, (_, index) => ({ scriptNumber: index + 1, heading: `Student ${index + 1}` })), paper.keepClear);
  const answered = await penAnswers(printed, paper, seed, mix);
  const pile = await scanPile(answered.pdf, { seed, pagesPerScript: paper.pages.length, duplicate: false, missing: false, dpi: { min: 150, max: 300 }, ...scan });
  const pages: { pile: Printed; code: PageReading; truth: PageTruth; reading: AreasReading }[] = [];
  for await (const code of imaging.readPile(pile.pdf)) {
    const truth = pile.truth[code.pilePage - 1] as Printed;
    pages.push({ pile: truth, code, truth: answered.truth[truth.printedPage - 1]!, reading: await imaging.readAreas(areasInput(paper, code, truth, batchCode)) });
  }
  return pages;
}

/** The promise, on any set of pages. */
function expectThePromise(pages: Awaited<ReturnType<typeof readClassSet>>, { decidedFloor }: { decidedFloor: number }) {
  const figures = score(pages);
  expect(figures.wrongDetails).toEqual([]);
  expect(figures.falseBlankDetails).toEqual([]);
  expect(figures.answersDecided / figures.answers).toBeGreaterThanOrEqual(decidedFloor);
  return figures;
}

describe("reading ticks and blanks from scanned scripts", () => {
  it(
    "decides most answers, none wrongly, and calls no written area blank, upside-down pages and a page without its code included",
    async () => {
      // 3 scripts × 3 pages: 216 boxes, 54 answers, 27 written areas; 3 pages upside down, one code torn off.
      const pages = await readClassSet(3, 36, { upsideDown: 3, tornCodes: [5] });
      const figures = expectThePromise(pages, { decidedFloor: 0.95 });
      expect(figures.boxes).toBe(216);
      expect(figures.blanksFound / figures.blankAreas).toBeGreaterThanOrEqual(0.8);
      // Every page was aligned: by its code, or (the torn one) by its content.
      const torn = pages.find((page) => page.pile.printedPage === 5)!;
      expect(torn.code.code).toBeNull();
      expect(torn.reading.alignment.by).toBe("content");
      expect(pages.filter((page) => page.reading.alignment.by === "code")).toHaveLength(pages.length - 1);
      // The pages fed upside down read as well as the others.
      const upsideDown = pages.filter((page) => page.pile.rotation === 180);
      expect(upsideDown).toHaveLength(3);
      expect(score(upsideDown).answersDecided).toBeGreaterThan(0);
    },
    timeoutFor(9 * PAGE_COST + 5),
  );

  it(
    "keeps the promise on a script answered and scanned from a generated seed",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 30 }), async (seed) => {
          expectThePromise(await readClassSet(1, seed, { upsideDown: 1, shuffle: true }), { decidedFloor: 0.9 });
        }),
        { numRuns: 1 },
      );
    },
    timeoutFor(3 * PAGE_COST + 3),
  );

  it(
    "reads a page upside down whose code is torn off (no code, turned the wrong way) by its content",
    async () => {
      const pages = await readClassSet(1, 7, { upsideDown: 3, tornCodes: [1, 2, 3], shuffle: false });
      for (const page of pages) {
        // Nothing told the reader the page was upside down: the code that would have is gone.
        expect(page.code.rotation).toBe(0);
        expect(page.reading.alignment).toEqual({ by: "content", turn: 180 });
      }
      expectThePromise(pages, { decidedFloor: 0.9 });
    },
    timeoutFor(3 * PAGE_COST + 3),
  );

  it(
    "finds faint pencil, ticks and words, on a harsh copier's pale scan, and never calls a pencil word blank",
    async () => {
      const pages = await readClassSet(2, 37, { harsh: true, upsideDown: 1 }, { written: [["pencil-word", 1]], tick: [["pencil", 3], ["none", 1]] });
      const figures = expectThePromise(pages, { decidedFloor: 0.9 });
      // Every written area holds pencil (the digit boxes a "7" in pen): none blank, nearly all seen as written.
      expect(figures.blankAreas).toBe(0);
      expect(figures.writtenFound / figures.writtenAreas).toBeGreaterThanOrEqual(0.85);
    },
    timeoutFor(6 * PAGE_COST + 3),
  );

  it("finds the code's corners where the print put it (zxing's corners against printedCodeRect)", async () => {
    const { pdf } = await stampScripts(paper.bytes, batchCodeOf(5), [{ scriptNumber: 1, heading: "Student 1" }], paper.keepClear);
    const image = (await renderPageGrey(pdf, 2, 200))!;
    const reading = await readPageCode({ ...image, dpi: 200 });
    const rect = printedCodeRect(paper.pageSizes, paper.keepClear, 2, reading.code!);
    const px = (mm: number) => (mm / 25.4) * 200;
    const corners = reading.corners!;
    for (const [corner, x, y] of [
      [corners.topLeft, rect.x, rect.y],
      [corners.topRight, rect.x + rect.width, rect.y],
      [corners.bottomLeft, rect.x, rect.y + rect.height],
      [corners.bottomRight, rect.x + rect.width, rect.y + rect.height],
    ] as const) {
      expect(Math.abs(corner.x - x * image.width)).toBeLessThan(px(0.5));
      expect(Math.abs(corner.y - y * image.height)).toBeLessThan(px(0.5));
    }
  });

  it("has a convention for corrections the print can put on a script's first page", () => {
    expect(CORRECTIONS_CONVENTION).toMatch(/fill the wrong box in completely/);
    expect(CORRECTIONS_CONVENTION.length).toBeLessThan(300);
  });
});

describe("readAreas refuses what it cannot read with a sentence", () => {
  let page: PageReading;
  let truth: Printed;
  const batchCode = batchCodeOf(99);

  beforeAll(async () => {
    const imaging = workerImaging();
    const { pdf } = await imaging.stamp(paper.bytes, batchCode, [{ scriptNumber: 1, heading: "Student 1" }], paper.keepClear);
    const pile = await scanPile(pdf, { seed: 99, pagesPerScript: paper.pages.length, duplicate: false, missing: false, upsideDown: 0, shuffle: false });
    for await (const reading of imaging.readPile(pile.pdf)) {
      page = reading;
      truth = pile.truth[0] as Printed;
      break;
    }
  }, timeoutFor(6));

  const refusal = async (promise: Promise<unknown>) => {
    const error = await promise.then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("invalid");
    expect((error as AppError).message).toMatch(/^[A-Z].*\.$/);
    return error as AppError;
  };

  it(
    "refuses tick boxes and areas that are not on the page, whatever their numbers",
    async () => {
      const imaging = workerImaging();
      const input = areasInput(paper, page, truth, batchCode);
      const offPage = fc.oneof(
        fc.double({ min: 1.0001, max: 1e9, noNaN: true }),
        fc.double({ min: -1e9, max: -0.0001, noNaN: true }),
        fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
      );
      const field = fc.constantFrom("x", "y", "width", "height");
      await fc.assert(
        fc.asyncProperty(offPage, field, fc.boolean(), async (value, key, inBox) => {
          if (inBox) {
            const [area, ...rest] = input.tickAreas;
            const boxes = area!.boxes.map((box, index) => (index === 0 ? { ...box, [key]: value } : box));
            await refusal(imaging.readAreas({ ...input, tickAreas: [{ ...area!, boxes }, ...rest] }));
          } else {
            const [area, ...rest] = input.writtenAreas;
            await refusal(imaging.readAreas({ ...input, writtenAreas: [{ ...area!, [key]: value }, ...rest] }));
          }
        }),
        { numRuns: 12 },
      );
      await refusal(imaging.readAreas({ ...input, tickAreas: [{ id: "q", boxes: [] }] }));
      await refusal(imaging.readAreas({ ...input, page: 4 }));
      await refusal(imaging.readAreas({ ...input, rotation: 45 as 0 }));
      // After all that, the worker still reads the page.
      const reading = await imaging.readAreas(input);
      expect(reading.alignment.by).toBe("code");
    },
    timeoutFor(10),
  );

  it(
    "refuses a corrupt scan, a corrupt paper and pages larger than any paper",
    async () => {
      const imaging = workerImaging();
      const input = areasInput(paper, page, truth, batchCode);
      const corrupt = new Uint8Array(page.onePagePdf.slice(0, Math.floor(page.onePagePdf.length / 3)));
      await refusal(imaging.readAreas({ ...input, onePagePdf: new TextEncoder().encode("not a PDF at all") }));
      await refusal(imaging.readAreas({ ...input, paper: new Uint8Array(paper.bytes.slice(0, 200)) }));
      // A scan cut short may still parse (pdf-lib is lenient): then it has no pixels and nothing is decided.
      const cut = await imaging.readAreas({ ...input, onePagePdf: corrupt }).catch((error: unknown) => error);
      if (cut instanceof AppError) expect(cut.code).toBe("invalid");
      else expect((cut as AreasReading).tickAreas.every((area) => area.answer === null)).toBe(true);
      const huge = (side: number) => rawPdf(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${side} ${side}] >>`]);
      // 4 m a side: no scanned paper is that large.
      expect((await refusal(imaging.readAreas({ ...input, onePagePdf: huge(12_000) }))).message).toMatch(/larger than any paper/);
      // A paper page of 1 m a side would be drawn below the reading's resolution.
      expect((await refusal(imaging.readAreas({ ...input, paper: huge(2_800), page: 1 }))).message).toMatch(/larger than tick boxes are read on/);
      expect((await imaging.readAreas(input)).alignment.by).toBe("code");
    },
    timeoutFor(10),
  );
});
