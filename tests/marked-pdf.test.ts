import { unzipSync } from "fflate";
import fc from "fast-check";
import { PDFDocument, StandardFonts, degrees, rgb } from "pdf-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../server/errors";
import { loadPdfJs, openForRendering, standardFontDataUrl } from "../server/exam/intake/imaging/pdfjs";
import type { CoverSheet, MarkedAnnotation, MarkedQuestion, MarkedScriptDocument } from "../server/exam/returns/marked-pdf/document";
import { MarkedPdfWorker, markedScriptsZip, zipEntryName } from "../server/exam/returns/marked-pdf/index";
import { MARGIN, formatMark, renderClassFeedback, renderMarkedScript } from "../server/exam/returns/marked-pdf/render";
import { timeoutFor } from "./support/busy-machine";
import { hostileFiles } from "./support/hostile-files";
import { fuzzSettings, hostileString } from "./support/hostile-input";
import { pdfTextPages } from "./support/pdf-text";
import { scanPile } from "./support/scanned-pile";

/**
 * The marked script as a PDF (issue 35, items 4 and 5), read back as a reader would: pdfjs's text layer
 * for the marks and names, pdfjs's pixels for where the annotations are. The scan is a real one: a
 * four-page paper printed and scanned by tests/support/scanned-pile.ts (JPEG pages, as a copier makes).
 */

const { seed, cases } = fuzzSettings(25);
const ACCENTED = "Zoë Ñúñez-Ødegård";
const SCAN_PAGES = 4;
let scan: Uint8Array;
const worker = new MarkedPdfWorker();

/** A four-page paper: a heading and two answer boxes a page. */
async function fourPagePaper(): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let index = 0; index < SCAN_PAGES; index++) {
    const page = document.addPage([595.28, 841.89]);
    page.drawText(`Mock paper, page ${index + 1}`, { x: 56, y: 790, size: 16, font });
    for (const row of [0, 1]) {
      page.drawText(`Question ${index * 2 + row + 1}`, { x: 56, y: 720 - row * 340, size: 12, font });
      page.drawRectangle({ x: 56, y: 420 - row * 340, width: 483, height: 280, borderColor: rgb(0.6, 0.6, 0.6), borderWidth: 1 });
    }
  }
  return document.save();
}

beforeAll(async () => {
  const printed = await fourPagePaper();
  const pile = await scanPile(printed, { seed: 35, pagesPerScript: SCAN_PAGES, dpi: 100, upsideDown: 0, duplicate: false, missing: false, shuffle: false });
  scan = pile.pdf;
}, timeoutFor(10));

afterAll(() => worker.stop());

/** Questions 1–8, two a page, each with its answer box as a response area (page-relative, top left). */
function questions(awarded: (number | null)[] = [2, 0, 3.5, null, 1, 4, 2, 0]): MarkedQuestion[] {
  return awarded.map((mark, index) => ({
    label: `${index + 1}${index % 2 === 0 ? "a" : "b"}`,
    max: 4,
    awarded: mark,
    comment: index === 0 ? `Good start, ${ACCENTED}: show the working next time.` : null,
    rubricItems: index === 2 ? ["Correct method", "Units given"] : [],
    responseAreas: [{ page: Math.floor(index / 2) + 1, x: 56 / 595.28, y: (index % 2 === 0 ? 141.89 : 481.89) / 841.89, width: 483 / 595.28, height: 280 / 841.89 }],
  }));
}

function documentFor(overrides: Partial<MarkedScriptDocument> = {}): MarkedScriptDocument {
  const qs = Array.isArray(overrides.questions) ? overrides.questions : questions();
  return {
    who: ACCENTED,
    batchTitle: "11X Maths, autumn mock",
    paperTitle: "Mock paper 1",
    questions: qs,
    total: { awarded: qs.reduce((sum, q) => sum + (q.awarded ?? 0), 0), max: qs.reduce((sum, q) => sum + q.max, 0) },
    revise: [
      { name: "Solving linear equations", lost: 4, available: 8 },
      { name: "Fractions: addition and subtraction", lost: 2, available: 4 },
    ],
    scan,
    annotations: [],
    ...overrides,
  };
}

/** The lines of a page's text layer, blanks left out. */
const linesOf = (page: string) => page.split("\n").filter((line) => line.trim() !== "");

/** Each question's mark as the cover's table reads: the line after its label. */
function coverMarks(cover: string[], labels: string[]): Record<string, string> {
  const marks: Record<string, string> = {};
  const start = cover.indexOf("Comment");
  for (const label of labels) {
    const at = cover.indexOf(label, start);
    marks[label] = at < 0 ? "(missing)" : cover[at + 1]!;
  }
  return marks;
}

const expectedMark = (question: MarkedQuestion) => `${question.awarded === null ? "–" : formatMark(question.awarded)} / ${formatMark(question.max)}`;

describe("the cover sheet", () => {
  it("reads back, by its text layer, every question's mark as given, the accented name, the total and what to revise", async () => {
    const document = documentFor();
    const pdf = await renderMarkedScript(document);
    const pages = await pdfTextPages(pdf);
    expect(pages).toHaveLength(1 + SCAN_PAGES);
    const cover = linesOf(pages[0]!);
    expect(cover).toContain(ACCENTED);
    expect(cover).toContain("Total: 12.5 / 32 (39%)");
    expect(coverMarks(cover, document.questions.map((q) => q.label))).toEqual(Object.fromEntries(document.questions.map((q) => [q.label, expectedMark(q)])));
    expect(cover).toContain("Solving linear equations — 4 of 8 marks lost");
    expect(cover.join(" ")).toContain(`Good start, ${ACCENTED}: show the working next time.`);
    expect(cover).toContain("• Correct method");
    // Each scan page carries its questions' marks in the margin.
    for (let page = 1; page <= SCAN_PAGES; page++) {
      const text = linesOf(pages[page]!);
      const onPage = document.questions.filter((q) => q.responseAreas[0]!.page === page);
      expect(coverMarks(["Comment", ...text], onPage.map((q) => q.label))).toEqual(Object.fromEntries(onPage.map((q) => [q.label, expectedMark(q)])));
    }
  });

  it("runs a long cover on to more pages, every mark still read back, a comment's run-on labelled", async () => {
    const many = Array.from({ length: 40 }, (_, index) => ({
      label: `Q${index + 1}`,
      max: 4,
      awarded: index % 5,
      comment: index === 5 ? "Set out each step on its own line. ".repeat(250) : null,
      rubricItems: index % 3 === 0 ? ["Correct method", "Accurate answer"] : [],
      responseAreas: [],
    }));
    const pages = await pdfTextPages(await renderClassFeedback([{ who: ACCENTED, batchTitle: "11X", paperTitle: "Paper", questions: many, total: { awarded: 80, max: 160 }, revise: [] }]));
    expect(pages.length).toBeGreaterThan(1);
    const lines = pages.flatMap(linesOf);
    expect(coverMarks(lines, many.map((q) => q.label))).toEqual(Object.fromEntries(many.map((q) => [q.label, expectedMark(q)])));
    expect(lines).toContain("Q6 (continued)");
    pages.forEach((page, index) => expect(linesOf(page).at(-1)).toBe(`${ACCENTED} · Paper · page ${index + 1} of ${pages.length}`));
  });

  it("gives any marks, labels and names back as given (generated), and the class PDF keeps the class list's order", async () => {
    const label = fc.stringMatching(/^[1-9][0-9]?[a-h]?(\([ivx]{1,3}\))?$/);
    const mark = fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 160 }).map((quarters) => quarters / 4));
    const name = fc.oneof(fc.constantFrom(ACCENTED, "Łukasz Żółć", "Şükrü Çağlar", "Дмитрий Иванов", "Script 17"), fc.stringMatching(/^[A-Z][a-zà-ÿ]{1,12} [A-Z][a-zà-ÿ'-]{1,16}$/));
    const sheet = fc.record({
      who: name,
      marks: fc.uniqueArray(fc.tuple(label, mark, fc.integer({ min: 1, max: 40 })), { minLength: 1, maxLength: 30, selector: ([l]) => l }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(sheet, { minLength: 1, maxLength: 4 }), async (students) => {
        const sheets: CoverSheet[] = students.map(({ who, marks }) => {
          const qs = marks.map(([l, awarded, max]) => ({ label: l, max, awarded: awarded === null ? null : Math.min(awarded, max), comment: null, rubricItems: [], responseAreas: [] }));
          return { who, batchTitle: "11X", paperTitle: "Paper", questions: qs, total: { awarded: 0, max: 0 }, revise: [] };
        });
        const pages = await pdfTextPages(await renderClassFeedback(sheets));
        // At most 30 questions: each sheet is one page, in the order given, its footer naming the student.
        expect(pages).toHaveLength(sheets.length);
        for (const [index, sheet] of sheets.entries()) {
          const lines = linesOf(pages[index]!);
          expect(lines[2]).toBe(sheet.who);
          expect(lines.at(-1)).toBe(`${sheet.who} · Paper`);
          expect(coverMarks(lines, sheet.questions.map((q) => q.label))).toEqual(Object.fromEntries(sheet.questions.map((q) => [q.label, expectedMark(q)])));
        }
      }),
      { seed, numRuns: cases },
    );
  }, timeoutFor(30));
});

/** Page `pageNumber` at 72 dpi in grey, as a viewer shows it (its /Rotate applied). */
async function renderAsShown(pdf: Uint8Array, pageNumber: number) {
  const pdfjs = await loadPdfJs();
  const task = pdfjs.getDocument({ data: new Uint8Array(pdf), standardFontDataUrl, verbosity: 0, isOffscreenCanvasSupported: false });
  try {
    const document = await task.promise;
    const page = await document.getPage(pageNumber);
    const viewport = page.getViewport({ scale: 1 });
    const factory = document.canvasFactory as { create(width: number, height: number): { canvas: HTMLCanvasElement; context: CanvasRenderingContext2D } };
    const { canvas, context } = factory.create(Math.round(viewport.width), Math.round(viewport.height));
    context.fillStyle = "#ffffff";
    context.fillRect(0, 0, canvas.width, canvas.height);
    await page.render({ canvas, canvasContext: context, viewport }).promise;
    const rgba = new Uint8Array(context.getImageData(0, 0, canvas.width, canvas.height).data);
    const data = new Uint8Array(canvas.width * canvas.height);
    for (let pixel = 0; pixel < data.length; pixel++) data[pixel] = Math.round(0.299 * rgba[pixel * 4]! + 0.587 * rgba[pixel * 4 + 1]! + 0.114 * rgba[pixel * 4 + 2]!);
    return { data, rgba, width: canvas.width, height: canvas.height };
  } finally {
    await task.destroy();
  }
}

type Shown = Awaited<ReturnType<typeof renderAsShown>>;

/** The bounding box of the red pixels (the marks' ink) within the first `width` columns. */
function redBox(image: Shown, width: number) {
  let box: { left: number; top: number; right: number; bottom: number } | null = null;
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * image.width + x) * 4;
      if (image.rgba[at]! - image.rgba[at + 1]! < 60) continue;
      box = box ? { left: Math.min(box.left, x), top: Math.min(box.top, y), right: Math.max(box.right, x), bottom: Math.max(box.bottom, y) } : { left: x, top: y, right: x, bottom: y };
    }
  }
  return box;
}

/** How many `size`-pixel blocks of `b`'s area have means more than `threshold` grey levels apart in `a` and `b`. */
function blocksDiffering(a: Shown, b: Shown, size: number, threshold: number): number {
  let differing = 0;
  for (let top = 0; top + size <= b.height; top += size) {
    for (let left = 0; left + size <= b.width; left += size) {
      let sumA = 0;
      let sumB = 0;
      for (let y = top; y < top + size; y++) {
        for (let x = left; x < left + size; x++) {
          sumA += a.data[y * a.width + x]!;
          sumB += b.data[y * b.width + x]!;
        }
      }
      if (Math.abs(sumA - sumB) / (size * size) > threshold) differing++;
    }
  }
  return differing;
}

/** The bounding box of the pixels that differ (by more than `threshold` grey levels) between two images, within the first `width` columns. */
function differingBox(a: { data: Uint8Array; width: number; height: number }, b: { data: Uint8Array; width: number }, width: number, threshold = 8) {
  let box: { left: number; top: number; right: number; bottom: number } | null = null;
  for (let y = 0; y < a.height; y++) {
    for (let x = 0; x < width; x++) {
      if (Math.abs(a.data[y * a.width + x]! - b.data[y * b.width + x]!) <= threshold) continue;
      box = box ? { left: Math.min(box.left, x), top: Math.min(box.top, y), right: Math.max(box.right, x), bottom: Math.max(box.bottom, y) } : { left: x, top: y, right: x, bottom: y };
    }
  }
  return box;
}

describe("the scan pages", () => {
  it("draw a tick, a cross and a highlight where they were put, over the scan left as it was", async () => {
    const dpi = 72;
    const shapes: [number, MarkedAnnotation][] = [
      [2, { kind: "tick", x: 0.3, y: 0.4 }],
      [3, { kind: "cross", x: 0.72, y: 0.81 }],
      [4, { kind: "highlight", x: 0.2, y: 0.1, width: 0.5, height: 0.05 }],
    ];
    // No response areas: the only difference between the scan and the output is the shape.
    const document = documentFor({ questions: questions().map((q) => ({ ...q, responseAreas: [] })), annotations: shapes.map(([page, shape]) => ({ page, shapes: [shape] })) });
    const output = await openForRendering(await renderMarkedScript(document));
    const input = await openForRendering(scan);
    try {
      expect(output.pageCount).toBe(1 + SCAN_PAGES);
      for (const [page, shape] of shapes) {
        const before = await input.render(page, dpi);
        const after = await output.render(1 + page, dpi);
        // The page is the scan's, MARGIN points wider.
        expect(after.height).toBe(before.height);
        expect(after.width - before.width).toBeCloseTo((MARGIN * dpi) / 72, -1);
        const box = differingBox(after, before, before.width)!;
        expect(box).not.toBeNull();
        const centre = { x: (box.left + box.right) / 2 / before.width, y: (box.top + box.bottom) / 2 / before.height };
        if (shape.kind === "highlight") {
          expect(box.left / before.width).toBeCloseTo(shape.x, 1);
          expect((box.right + 1) / before.width).toBeCloseTo(shape.x + shape.width, 1);
        } else if (shape.kind === "tick" || shape.kind === "cross") {
          // Within 1% of the page (6 points on A4) of where it was drawn, and small (a tick is 2.5% of the page).
          expect(Math.abs(centre.x - shape.x)).toBeLessThan(0.01);
          expect(Math.abs(centre.y - shape.y)).toBeLessThan(0.01);
          expect((box.right - box.left) / before.width).toBeLessThan(0.05);
        }
      }
      // A page with nothing on it is the scan, pixel for pixel (within JPEG decoding's rounding).
      expect(differingBox(await output.render(2, dpi), await input.render(1, dpi), (await input.render(1, dpi)).width)).toBeNull();
    } finally {
      await output.close();
      await input.close();
    }
  }, timeoutFor(5));

  it("shows a scan page turned by its /Rotate as a reader sees it, with the tick where the marker saw it", async () => {
    const turned = await PDFDocument.load(scan);
    turned.getPage(1).setRotation(degrees(180));
    turned.getPage(2).setRotation(degrees(90));
    turned.getPage(3).setRotation(degrees(270));
    const rotatedScan = await turned.save();
    const ticks: [number, MarkedAnnotation & { kind: "tick" }][] = [
      [2, { kind: "tick", x: 0.3, y: 0.2 }],
      [3, { kind: "tick", x: 0.7, y: 0.35 }],
      [4, { kind: "tick", x: 0.15, y: 0.8 }],
    ];
    const document = documentFor({ scan: rotatedScan, questions: questions().map((q) => ({ ...q, responseAreas: [] })), annotations: ticks.map(([page, shape]) => ({ page, shapes: [shape] })) });
    const output = await renderMarkedScript(document);
    for (const [page, tick] of ticks) {
      // The input as a viewer shows it (pdfjs applies /Rotate); the output page has none of its own.
      const before = await renderAsShown(rotatedScan, page);
      const after = await renderAsShown(output, 1 + page);
      expect(after.height).toBe(before.height);
      // The ink of the marks is red, the scan grey: the tick is where the red is.
      const red = redBox(after, before.width)!;
      expect(red).not.toBeNull();
      expect((red.right - red.left) / before.width).toBeLessThan(0.05);
      expect(Math.abs((red.left + red.right) / 2 / before.width - tick.x)).toBeLessThan(0.01);
      expect(Math.abs((red.top + red.bottom) / 2 / before.height - tick.y)).toBeLessThan(0.01);
      // The scan is the same way up as the viewer shows it: 12-pixel blocks' means agree (a pixel's
      // rounding apart), all but the few the tick darkens. A page the wrong way up differs in dozens.
      expect(blocksDiffering(after, before, 12, 10)).toBeLessThanOrEqual(4);
    }
  }, timeoutFor(5));

  it("draws pen strokes, text and stamps (generated) on the page, whatever their words", async () => {
    const unit = fc.double({ min: 0, max: 1, noNaN: true });
    const shape: fc.Arbitrary<MarkedAnnotation> = fc.oneof(
      fc.record({ kind: fc.constantFrom("tick" as const, "cross" as const), x: unit, y: unit }),
      fc.record({ kind: fc.constantFrom("text" as const, "stamp" as const), x: unit, y: unit, text: hostileString.filter((text) => text.length <= 2_000) }),
      fc.record({ kind: fc.constant("highlight" as const), x: unit, y: unit, width: unit, height: unit }),
      fc.record({ kind: fc.constant("pen" as const), points: fc.array(fc.tuple(unit, unit, unit), { minLength: 1, maxLength: 200 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.integer({ min: 1, max: SCAN_PAGES + 2 }), shape), { maxLength: 40 }), async (placed) => {
        const pdf = await renderMarkedScript(documentFor({ annotations: placed.map(([page, s]) => ({ page, shapes: [s] })) }));
        expect((await PDFDocument.load(pdf)).getPageCount()).toBe(1 + SCAN_PAGES);
      }),
      { seed, numRuns: cases },
    );
  }, timeoutFor(30));
});

describe("bounds", () => {
  const refusal = async (document: MarkedScriptDocument) => {
    const error = await renderMarkedScript(document).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("invalid");
    return (error as AppError).message;
  };

  it("refuses a scan that is not a PDF, 10,000 annotations and huge text with a sentence", async () => {
    expect(await refusal(documentFor({ scan: new TextEncoder().encode("<html>not a scan</html>") }))).toBe(
      `The PDF of ${ACCENTED} cannot be made: its scan cannot be used. The file is not a PDF that can be read: it is not a PDF file. Scan it again, or save it as PDF from the copier.`,
    );
    const ticks = Array.from({ length: 10_000 }, (_, index) => ({ kind: "tick" as const, x: (index % 100) / 100, y: Math.floor(index / 100) / 100 }));
    expect(await refusal(documentFor({ annotations: [{ page: 1, shapes: ticks }] }))).toBe(
      `The PDF of ${ACCENTED} cannot be made: it has more than 2,000 annotations, the most one script may have.`,
    );
    const comment = "word ".repeat(200_000);
    expect(await refusal(documentFor({ questions: questions().map((q) => ({ ...q, comment })) }))).toBe(
      `The PDF of ${ACCENTED} cannot be made: the comment on question 1a is 1,000,000 characters long, more than the 10,000 it may have.`,
    );
    expect(await refusal(documentFor({ who: "x".repeat(1_000_000) }))).toMatch(/^The PDF of x{59}… cannot be made: the student's name is 1,000,000 characters long/);
    const stroke = { kind: "pen" as const, points: Array.from({ length: 250_000 }, (_, index) => [0.5, index / 250_000, 0.5] as [number, number, number]) };
    expect(await refusal(documentFor({ annotations: [{ page: 1, shapes: [stroke] }] }))).toMatch(/pen strokes have more than 200,000 points/);
  });

  it("refuses every hostile file as a scan with a sentence, in the worker, never hanging", async () => {
    for (const file of await hostileFiles()) {
      const outcome = await worker.script(documentFor({ scan: file.bytes })).then(
        (pdf) => ({ pdf }),
        (error: unknown) => ({ error }),
      );
      // Every one of them is refused before pdf-lib copies a page (the intake's checks, limits.ts).
      expect("error" in outcome, file.threat).toBe(true);
      const error = (outcome as { error: unknown }).error;
      expect(error, file.threat).toBeInstanceOf(AppError);
      expect((error as AppError).code, file.threat).toBe("invalid");
      expect((error as AppError).message, file.threat).toMatch(/^The PDF of Zoë Ñúñez-Ødegård cannot be made: its scan cannot be used\. .+\.$/);
    }
  }, timeoutFor(60));

  it("ends a request that takes longer than its time, with a sentence, and the next request gets a fresh worker", async () => {
    const slow = new MarkedPdfWorker({ timeoutMs: 1 });
    try {
      await expect(slow.script(documentFor())).rejects.toThrow(/^The PDF of Zoë Ñúñez-Ødegård took longer than 0 seconds, the most one script may take, and was stopped\./);
      await expect(slow.script(documentFor())).rejects.toMatchObject({ code: "unavailable" });
    } finally {
      slow.stop();
    }
  }, timeoutFor(10));

  it("answers a request a crashed worker held with a sentence, and makes the next one in a fresh worker", async () => {
    const crashing = new MarkedPdfWorker();
    try {
      const held = crashing.script(documentFor());
      crashing.process!.kill("SIGKILL");
      await expect(held).rejects.toMatchObject({ code: "unavailable", message: "Making the PDF stopped unexpectedly; try again" });
      expect((await pdfTextPages(await crashing.script(documentFor())))[0]).toContain(ACCENTED);
    } finally {
      crashing.stop();
    }
  }, timeoutFor(10));

  it("refuses anything the renderer was not made for (generated documents) with a sentence, never another error", async () => {
    const anything = fc.oneof(hostileString, fc.double(), fc.integer(), fc.constant(null), fc.constant(undefined), fc.array(fc.double(), { maxLength: 3 }));
    const document = fc.record({
      who: fc.oneof(hostileString, anything),
      questions: fc.oneof(
        anything,
        fc.array(fc.record({ label: anything, max: anything, awarded: anything, comment: anything, rubricItems: fc.oneof(anything, fc.array(anything, { maxLength: 3 })), responseAreas: fc.oneof(anything, fc.array(fc.record({ page: anything, x: anything, y: anything, width: anything, height: anything }), { maxLength: 2 })) }), { maxLength: 3 }),
      ),
      annotations: fc.oneof(anything, fc.array(fc.record({ page: anything, shapes: fc.array(fc.record({ kind: fc.oneof(fc.constantFrom("tick", "pen", "text", "highlight", "stamp", "cross"), anything), x: anything, y: anything, text: anything, points: anything, width: anything, height: anything }), { maxLength: 3 }) }), { maxLength: 3 })),
    });
    await fc.assert(
      fc.asyncProperty(document, async (fields) => {
        const outcome = await renderMarkedScript(documentFor({ total: { awarded: 0, max: 0 }, ...(fields as unknown as Partial<MarkedScriptDocument>) })).then(
          () => null,
          (error: unknown) => error,
        );
        if (outcome !== null) {
          expect(outcome).toBeInstanceOf(AppError);
          expect((outcome as AppError).code).toBe("invalid");
          expect((outcome as AppError).message).toMatch(/^The PDF of .* cannot be made: .+\.$/su);
        }
      }),
      { seed, numRuns: cases * 4 },
    );
  }, timeoutFor(30));
});

describe("the class's zip", () => {
  it("opens with one PDF per student in the class list's order, named by the student (or the script), a scan that cannot be used as a sentence", async () => {
    const students = [ACCENTED, "Ali Khan", "Ali Khan", "Script 17", "a/b:c*?"];
    async function* documents() {
      for (const who of students) yield documentFor({ who });
      yield documentFor({ who: "Broken Scan", scan: new Uint8Array([1, 2, 3]) });
    }
    const files = unzipSync(new Uint8Array(await new Response(markedScriptsZip(documents(), { worker })).arrayBuffer()));
    expect(Object.keys(files)).toEqual([`${ACCENTED}.pdf`, "Ali Khan.pdf", "Ali Khan (2).pdf", "Script 17.pdf", "a b c.pdf", "Broken Scan - not made.txt"]);
    for (const [index, who] of students.entries()) {
      const pages = await pdfTextPages(files[Object.keys(files)[index]!]!);
      expect(pages).toHaveLength(1 + SCAN_PAGES);
      expect(linesOf(pages[0]!)).toContain(who);
    }
    expect(new TextDecoder().decode(files["Broken Scan - not made.txt"])).toMatch(/^The PDF of Broken Scan cannot be made: its scan cannot be used\./);
  }, timeoutFor(20));

  it("ends the stream with the loader's error when the next student cannot be read", async () => {
    async function* documents() {
      yield documentFor({ who: "First" });
      throw new AppError("not_found", "Submission not found");
    }
    await expect(new Response(markedScriptsZip(documents(), { worker })).arrayBuffer()).rejects.toMatchObject({ code: "not_found" });
  }, timeoutFor(10));

  it("makes the class's cover sheets in the worker, in the order given", async () => {
    const names = ["Zoë Ñúñez-Ødegård", "Ali Khan", "Script 4"];
    const sheets: CoverSheet[] = names.map((who) => {
      const { scan: _scan, annotations: _annotations, ...sheet } = documentFor({ who });
      return sheet;
    });
    const pages = await pdfTextPages(await worker.classFeedback(sheets, "11X feedback"));
    expect(pages.map((page) => linesOf(page)[2])).toEqual(names);
  }, timeoutFor(10));

  it("makes the class's marked scripts as one PDF in the worker, in the order given; a scan that cannot be used ends it with its sentence", async () => {
    const names = [ACCENTED, "Ali Khan", "Script 4"];
    const pdf = await worker.classScripts((function* () {
      for (const who of names) yield documentFor({ who });
    })(), "11X marked scripts");
    const pages = await pdfTextPages(pdf);
    expect(pages).toHaveLength(names.length * (1 + SCAN_PAGES));
    expect(names.map((_, index) => linesOf(pages[index * (1 + SCAN_PAGES)]!)[2])).toEqual(names);
    for (const [index] of names.entries()) {
      const cover = linesOf(pages[index * (1 + SCAN_PAGES)]!);
      expect(coverMarks(cover, questions().map((q) => q.label))).toEqual(Object.fromEntries(questions().map((q) => [q.label, expectedMark(q)])));
    }
    await expect(worker.classScripts([documentFor({ who: "Ali Khan" }), documentFor({ who: "Broken Scan", scan: new Uint8Array([37, 80, 68, 70]) })])).rejects.toThrow(
      /^The PDF of Broken Scan cannot be made: its scan cannot be used\./,
    );
    // The worker goes on.
    expect((await pdfTextPages(await worker.script(documentFor())))[0]).toContain(ACCENTED);
  }, timeoutFor(20));

  it("renders the next student only when the reader asks for more", async () => {
    let taken = 0;
    function* documents() {
      for (let index = 0; index < 5; index++) {
        taken++;
        yield documentFor({ who: `Student ${index + 1}` });
      }
    }
    const reader = markedScriptsZip(documents(), { worker }).getReader();
    await reader.read();
    expect(taken).toBe(1);
    await reader.cancel();
  }, timeoutFor(10));

  it("names entries safely for any name (generated): no path, no control characters, unique", () => {
    fc.assert(
      fc.property(fc.array(hostileString, { maxLength: 20 }), (names) => {
        const taken = new Set<string>();
        const entries = names.map((name) => zipEntryName(name, taken));
        expect(new Set(entries.map((entry) => entry.toLowerCase())).size).toBe(entries.length);
        for (const entry of entries) {
          expect(entry).toMatch(/\.pdf$/);
          expect(entry).not.toMatch(/[\p{Cc}\p{Cf}/\\:*?"<>|]/u);
          expect(entry).not.toMatch(/^\./);
          expect([...entry].length).toBeLessThanOrEqual(100 + " (99).pdf".length);
        }
      }),
      { seed, numRuns: cases * 4 },
    );
  });
});
