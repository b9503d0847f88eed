import {
  BlendMode,
  LineCapStyle,
  type PDFDocument as PDFDocumentType,
  type PDFEmbeddedPage,
  PDFDocument,
  type PDFFont,
  type PDFPage,
  type RGB,
  degrees,
  rgb,
} from "pdf-lib";
import { AppError } from "../../../errors";
import { type NameFonts, drawableText, embedNameFonts } from "../../../pdf/fonts";
import {
  type CoverSheet,
  type MarkedAnnotation,
  type MarkedQuestion,
  type MarkedScriptDocument,
  checkCoverSheet,
  checkMarkedScript,
  markedPdfLimits,
} from "./document";
import { openCheckedPdf } from "../../intake/imaging/inspect";
import { checkPageStreams } from "../../intake/imaging/limits";

/**
 * The marked script as a PDF (issue 35, item 4) and the class's cover sheets for paper (item 5), with
 * pdf-lib. A script's PDF is its cover sheet (the total, each question's mark, comment and rubric items,
 * what to revise), then each page of the scan embedded as it is (a form XObject: the scan's images and
 * drawing are copied, never decoded or re-rasterised) on a page MARGIN points wider, the annotations
 * drawn over it as vectors and each question's mark and comment in the margin beside its first response
 * area. Text is DejaVu Sans (server/pdf/fonts.ts), subset, so accented names print as written and the
 * text layer reads back. Runs in the marked-PDF worker (worker.ts); the document is checked first
 * (document.ts, markedPdfLimits).
 */

const A4 = { width: 595.28, height: 841.89 };
/** The margin added to the right of each scan page, in points (about 5.6 cm). */
export const MARGIN = 160;
const PAD = 48;
const INK = rgb(0.08, 0.08, 0.1);
const GREY = rgb(0.38, 0.38, 0.42);
const RULE = rgb(0.78, 0.78, 0.8);
const MARK_RED = rgb(0.8, 0.08, 0.1);
const STAMP_BLUE = rgb(0.1, 0.25, 0.65);
const HIGHLIGHT = rgb(1, 0.86, 0.1);
const MARGIN_FILL = rgb(0.97, 0.97, 0.96);
/** The most lines of a comment in the page's margin (the whole comment is on the cover). */
const NOTE_LINES = 12;
/** The most lines of a text annotation's box on the page. */
const SHAPE_LINES = 10;

/** A mark as people write it: 3, 2.5, 1.25. */
export function formatMark(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/0+$/, "").replace(/\.$/, "");
}

/** How a question's mark reads on the cover and in the margin: "3 / 4", or "– / 4" when not marked. */
const markText = (question: Pick<MarkedQuestion, "awarded" | "max">) =>
  `${question.awarded === null ? "–" : formatMark(question.awarded)} / ${formatMark(question.max)}`;

const advances = new WeakMap<PDFFont, Map<string, number>>();

/**
 * The width of `text` at `size`, from each character's advance (measured once per font): pdf-lib's
 * widthOfTextAtSize lays the whole string out with fontkit on every call, and wrapping measures each
 * line as it grows. pdf-lib draws glyphs at their advances (no kerning), so the sum is the width drawn
 * (a ligature such as "fi" is within a fraction of a point of its letters).
 */
function textWidth(text: string, font: PDFFont, size: number): number {
  let known = advances.get(font);
  if (!known) advances.set(font, (known = new Map<string, number>()));
  let width = 0;
  for (const char of text) {
    let advance = known.get(char);
    if (advance === undefined) {
      advance = font.widthOfTextAtSize(char, 1000);
      known.set(char, advance);
    }
    width += advance;
  }
  return (width * size) / 1000;
}

/** Lines of `text` at `size` within `width`: breaks at spaces and line breaks, and inside a word longer than the line. */
function wrapText(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  const fits = (value: string) => textWidth(value, font, size) <= width;
  for (const paragraph of text.split(/\r?\n/)) {
    let line = "";
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      const candidate = line ? `${line} ${word}` : word;
      if (fits(candidate)) {
        line = candidate;
        continue;
      }
      if (line) lines.push(line);
      // A word longer than the line (a URL, a hostile string) is cut where it reaches the edge.
      let rest = word;
      while (!fits(rest)) {
        let cut = 1;
        while (cut < rest.length && fits(rest.slice(0, cut + 1))) cut++;
        lines.push(rest.slice(0, cut));
        rest = rest.slice(cut);
      }
      line = rest;
    }
    lines.push(line);
  }
  while (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** At most `max` lines, the last one ending in "…" when some were cut. */
function capped(lines: string[], max: number, font: PDFFont, size: number, width: number): string[] {
  if (lines.length <= max) return lines;
  const kept = lines.slice(0, max);
  let last = kept[max - 1]!;
  while (last.length > 0 && textWidth(`${last}…`, font, size) > width) last = last.slice(0, -1);
  kept[max - 1] = `${last}…`;
  return kept;
}

async function newDocument(title: string): Promise<{ doc: PDFDocumentType; fonts: NameFonts }> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setTitle(title);
  doc.setCreator("Markbook");
  doc.setProducer("Markbook");
  return { doc, fonts: await embedNameFonts(doc) };
}

/** One marked script: its cover, then its scan with the annotations and the marks in the margin. */
export async function renderMarkedScript(document: MarkedScriptDocument): Promise<Uint8Array> {
  checkMarkedScript(document);
  const { doc, fonts } = await newDocument(`${document.paperTitle} — ${document.who}`);
  await addMarkedScript(doc, fonts, document);
  return doc.save();
}

/**
 * Adds one checked script to `doc`. Everything that can fail (the scan opened, its pages embedded) is
 * done before the first page is added, so a script refused leaves a class's PDF as it was.
 */
async function addMarkedScript(doc: PDFDocumentType, fonts: NameFonts, document: MarkedScriptDocument) {
  const scan = await loadScan(document);
  const pageCount = scan.getPageCount();
  let embedded: PDFEmbeddedPage[];
  try {
    embedded = await doc.embedPdf(scan, [...Array(pageCount).keys()]);
  } catch {
    throw scanRefused(document.who, "It is damaged.");
  }
  drawCover(doc, fonts, document);
  const shapesByPage = new Map<number, MarkedAnnotation[]>();
  for (const { page, shapes } of document.annotations) shapesByPage.set(page, [...(shapesByPage.get(page) ?? []), ...shapes]);
  for (let index = 0; index < pageCount; index++) {
    const source = scan.getPage(index);
    const page = drawScanPage(doc, embedded[index]!, source.getRotation().angle);
    const notes = document.questions.filter((question) => question.responseAreas[0]?.page === index + 1);
    drawMarginNotes(page, fonts, notes, index + 1);
    for (const shape of shapesByPage.get(index + 1) ?? []) drawShape(page, fonts, shape);
  }
  // Shapes on a page the scan no longer has are left out: the marks are on the cover all the same.
}

/**
 * The class's marked scripts as ONE PDF (item 4's "one PDF for the class"), built a student at a time
 * (the worker holds it between requests). Unlike the zip it cannot be streamed while it is made: pdf-lib
 * writes a document whole, so it holds every student's embedded scan until it is saved (about the size of
 * the scans: 70 MB for 30 × 8 pages), bounded by markedPdfLimits.students and the worker's heap.
 */
export class MarkedScriptsPdf {
  private students = 0;
  private scanBytes = 0;
  private constructor(
    private readonly doc: PDFDocumentType,
    private readonly fonts: NameFonts,
  ) {}

  static async create(title: string): Promise<MarkedScriptsPdf> {
    const { doc, fonts } = await newDocument(title);
    return new MarkedScriptsPdf(doc, fonts);
  }

  async add(document: MarkedScriptDocument): Promise<void> {
    if (this.students >= markedPdfLimits.students) {
      throw new AppError("invalid", `One class PDF holds at most ${markedPdfLimits.students} students' scripts.`);
    }
    checkMarkedScript(document);
    if (this.scanBytes + document.scan.byteLength > markedPdfLimits.classScanBytes) {
      throw new AppError(
        "invalid",
        `One class PDF holds at most ${markedPdfLimits.classScanBytes / 1024 / 1024} MB of scans, and ${document.who.slice(0, 60)}'s would take it past that: download the class as a zip of one PDF per student instead.`,
      );
    }
    await addMarkedScript(this.doc, this.fonts, document);
    this.students++;
    this.scanBytes += document.scan.byteLength;
  }

  save(): Promise<Uint8Array> {
    return this.doc.save();
  }
}

/** Feedback on paper: the cover sheets of a class in the order given (the class list's), one PDF. */
export async function renderClassFeedback(sheets: CoverSheet[], title = "Feedback"): Promise<Uint8Array> {
  if (sheets.length > markedPdfLimits.students) {
    throw new AppError("invalid", `One class PDF holds at most ${markedPdfLimits.students} students; this one has ${sheets.length}.`);
  }
  for (const sheet of sheets) checkCoverSheet(sheet);
  const { doc, fonts } = await newDocument(title);
  for (const sheet of sheets) drawCover(doc, fonts, sheet);
  return doc.save();
}

function scanRefused(who: string, why: string): AppError {
  return new AppError("invalid", `The PDF of ${who.length > 60 ? `${who.slice(0, 59)}…` : who} cannot be made: its scan cannot be used. ${why}`);
}

/**
 * The scan, opened as the intake opens a file a person sent (server/exam/intake/imaging/inspect.ts and
 * limits.ts): a page tree that loops or holds more than markedPdfLimits.scanPages pages, a page larger
 * than any paper, a stream that inflates beyond what it may (pdf-lib inflates a page's drawing to embed
 * it) are refused with a sentence before anything is copied.
 */
async function loadScan(document: MarkedScriptDocument): Promise<PDFDocumentType> {
  try {
    const { document: scan, pageCount } = await openCheckedPdf(document.scan, { maxPages: markedPdfLimits.scanPages, what: "scan" });
    if (pageCount === 0) throw new AppError("invalid", "This PDF has no pages.");
    await checkPageStreams(scan, null);
    return scan;
  } catch (error) {
    throw scanRefused(document.who, error instanceof AppError ? error.message : "It is damaged.");
  }
}

// ── The cover sheet ─────────────────────────────────────────────────────────────────────────────────

/** Lays text out down A4 pages, starting a new page when the next block does not fit. */
class CoverWriter {
  page!: PDFPage;
  y = 0;
  readonly pages: PDFPage[] = [];
  constructor(
    private readonly doc: PDFDocumentType,
    readonly fonts: NameFonts,
  ) {
    this.newPage();
  }

  newPage() {
    this.page = this.doc.addPage([A4.width, A4.height]);
    this.pages.push(this.page);
    this.y = A4.height - PAD;
  }

  /** Makes room for `height` points, on a new page when this one is full. */
  room(height: number) {
    if (this.y - height < PAD + 20) this.newPage();
  }

  text(value: string, x: number, size: number, font: PDFFont, color: RGB = INK) {
    this.page.drawText(drawableText(value, font), { x, y: this.y - size, size, font, color });
  }
}

function drawCover(doc: PDFDocumentType, fonts: NameFonts, sheet: CoverSheet) {
  const writer = new CoverWriter(doc, fonts);
  const width = A4.width - 2 * PAD;
  const { regular, bold } = fonts;
  const block = (value: string, size: number, font: PDFFont, color: RGB = INK, gap = 4, x = PAD, blockWidth = width) => {
    for (const line of wrapText(drawableText(value, font), font, size, blockWidth)) {
      writer.room(size + 2);
      writer.text(line, x, size, font, color);
      writer.y -= size + 2;
    }
    writer.y -= gap;
  };
  block(sheet.batchTitle, 10, regular, GREY, 2);
  block(sheet.paperTitle, 16, bold, INK, 8);
  block(sheet.who, 20, bold, INK, 10);
  const percent = sheet.total.max > 0 ? ` (${Math.round((100 * sheet.total.awarded) / sheet.total.max)}%)` : "";
  block(`Total: ${formatMark(sheet.total.awarded)} / ${formatMark(sheet.total.max)}${percent}`, 14, bold, INK, 14);

  // The table: question, mark, the comment and the rubric items.
  const columns = { question: PAD, mark: PAD + 70, comment: PAD + 150 };
  const commentWidth = A4.width - PAD - columns.comment;
  const header = () => {
    writer.text("Question", columns.question, 9, bold, GREY);
    writer.text("Mark", columns.mark, 9, bold, GREY);
    writer.text("Comment", columns.comment, 9, bold, GREY);
    writer.y -= 13;
    writer.page.drawLine({ start: { x: PAD, y: writer.y + 2 }, end: { x: A4.width - PAD, y: writer.y + 2 }, thickness: 0.6, color: RULE });
    writer.y -= 4;
  };
  writer.room(40);
  header();
  for (const question of sheet.questions) {
    const commentLines = question.comment ? wrapText(drawableText(question.comment, regular), regular, 9, commentWidth) : [];
    const rubricLines = question.rubricItems.flatMap((item) => wrapText(drawableText(`• ${item}`, regular), regular, 8, commentWidth));
    const labelLines = wrapText(drawableText(question.label, bold), bold, 10, columns.mark - columns.question - 6);
    // A row starts on a page with room for its first lines; a very long comment runs on to the next page.
    writer.room(14 + Math.min(3, commentLines.length) * 11);
    if (writer.y > A4.height - PAD - 1 && writer.pages.length > 1) header();
    const top = writer.y;
    for (const [index, line] of labelLines.entries()) writer.page.drawText(line, { x: columns.question, y: top - 10 - index * 12, size: 10, font: bold, color: INK });
    writer.page.drawText(drawableText(markText(question), bold), { x: columns.mark, y: top - 10, size: 10, font: bold, color: INK });
    let y = top;
    let runOn = false;
    const commentLine = (line: string, size: number, color: RGB) => {
      if (y - size - 2 < PAD + 20) {
        writer.newPage();
        header();
        y = writer.y;
        runOn = true;
        writer.page.drawText(drawableText(`${question.label} (continued)`, regular), { x: columns.question, y: y - 9, size: 8, font: regular, color: GREY });
      }
      writer.page.drawText(line, { x: columns.comment, y: y - size, size, font: regular, color });
      y -= size + 2;
    };
    for (const line of commentLines) commentLine(line, 9, INK);
    for (const line of rubricLines) commentLine(line, 8, GREY);
    // A comment that ran on to a new page ends the row there; otherwise the row is as tall as its label or comment.
    writer.y = (runOn ? y : Math.min(y, top - 12 * labelLines.length)) - 6;
    writer.page.drawLine({ start: { x: PAD, y: writer.y + 2 }, end: { x: A4.width - PAD, y: writer.y + 2 }, thickness: 0.3, color: RULE });
    writer.y -= 4;
  }

  if (sheet.revise.length > 0) {
    writer.y -= 10;
    writer.room(40);
    block("What to revise", 13, bold, INK, 4);
    block("Where you lost the most marks, by specification point:", 9, regular, GREY, 4);
    for (const point of sheet.revise) {
      block(`${point.name} — ${formatMark(point.lost)} of ${formatMark(point.available)} marks lost`, 10, regular, INK, 2, PAD + 8, width - 8);
    }
  }

  // Every page says whose it is, so a printed class set sorts back if dropped.
  const pages = writer.pages;
  const footer = drawableText(`${sheet.who} · ${sheet.paperTitle}`, regular);
  for (const [index, page] of pages.entries()) {
    const text = `${footer.length > 90 ? `${footer.slice(0, 89)}…` : footer}${pages.length > 1 ? ` · page ${index + 1} of ${pages.length}` : ""}`;
    page.drawText(text, { x: PAD, y: PAD / 2, size: 7, font: regular, color: GREY });
  }
}

// ── Scan pages ──────────────────────────────────────────────────────────────────────────────────────

/** A scan page as shown (its /Rotate applied), on a page MARGIN wider; the page drawn over is the returned one. */
interface ScanPage {
  page: PDFPage;
  width: number;
  height: number;
}

function drawScanPage(doc: PDFDocumentType, embedded: PDFEmbeddedPage, rotation: number): ScanPage {
  const turn = (((Math.round(rotation / 90) * 90) % 360) + 360) % 360;
  const sideways = turn === 90 || turn === 270;
  const width = sideways ? embedded.height : embedded.width;
  const height = sideways ? embedded.width : embedded.height;
  const page = doc.addPage([width + MARGIN, height]);
  // /Rotate turns the page clockwise when shown; pdf-lib's rotate is anticlockwise about (x, y).
  const placement = {
    0: { x: 0, y: 0 },
    90: { x: 0, y: embedded.width },
    180: { x: embedded.width, y: embedded.height },
    270: { x: embedded.height, y: 0 },
  }[turn as 0 | 90 | 180 | 270];
  page.drawPage(embedded, { ...placement, rotate: degrees(-turn) });
  page.drawRectangle({ x: width, y: 0, width: MARGIN, height, color: MARGIN_FILL });
  page.drawLine({ start: { x: width, y: 0 }, end: { x: width, y: height }, thickness: 0.5, color: RULE });
  return { page, width, height };
}

/** Page-relative (0–1, top left) to PDF points. */
const at = (scan: ScanPage, x: number, y: number) => ({ x: x * scan.width, y: scan.height - y * scan.height });

function drawMarginNotes(scan: ScanPage, fonts: NameFonts, questions: MarkedQuestion[], pageNumber: number) {
  const { regular, bold } = fonts;
  const left = scan.width + 8;
  const noteWidth = MARGIN - 16;
  let lowest = scan.height - 8;
  const placed = questions
    .map((question) => ({ question, area: question.responseAreas.find((area) => area.page === pageNumber)! }))
    .sort((a, b) => a.area.y - b.area.y);
  for (const { question, area } of placed) {
    const mark = drawableText(markText(question), bold);
    const markWidth = textWidth(mark, bold, 9);
    const lines = capped(
      [
        ...(question.comment ? wrapText(drawableText(question.comment, regular), regular, 7.5, noteWidth) : []),
        ...question.rubricItems.flatMap((item) => wrapText(drawableText(`• ${item}`, regular), regular, 7, noteWidth)),
      ],
      NOTE_LINES,
      regular,
      7.5,
      noteWidth,
    );
    const height = 12 + lines.length * 9;
    const areaTop = at(scan, area.x + area.width, area.y);
    const areaBottom = at(scan, area.x + area.width, area.y + area.height);
    // Beside the area's top, or below the note before it; never off the bottom of the page.
    let top = Math.min(areaTop.y, lowest);
    top = Math.max(top, Math.min(height + 6, scan.height - 8));
    scan.page.drawLine({ start: { x: areaTop.x - 2, y: areaTop.y }, end: { x: areaBottom.x - 2, y: areaBottom.y }, thickness: 1.2, color: STAMP_BLUE, opacity: 0.6 });
    scan.page.drawLine({ start: { x: areaTop.x - 2, y: areaTop.y }, end: { x: left - 3, y: top - 5 }, thickness: 0.4, color: STAMP_BLUE, opacity: 0.5, dashArray: [2, 2] });
    // The label, and the mark at the margin's right edge: two pieces of text, as the cover's table has them.
    scan.page.drawText(fitToWidth(drawableText(question.label, bold), bold, 9, noteWidth - markWidth - 6), { x: left, y: top - 9, size: 9, font: bold, color: INK });
    scan.page.drawText(mark, { x: left + noteWidth - markWidth, y: top - 9, size: 9, font: bold, color: INK });
    lines.forEach((line, index) => scan.page.drawText(line, { x: left, y: top - 20 - index * 9, size: 7.5, font: regular, color: INK }));
    lowest = top - height - 6;
  }
}

function fitToWidth(text: string, font: PDFFont, size: number, width: number): string {
  let value = text;
  while (value.length > 1 && textWidth(value, font, size) > width) value = `${[...value].slice(0, -2).join("")}…`;
  return value;
}

function drawShape(scan: ScanPage, fonts: NameFonts, shape: MarkedAnnotation) {
  const { page } = scan;
  // A tick or a cross is about 2.5% of the page's shorter side: 15 points on A4.
  const unit = Math.min(scan.width, scan.height) * 0.025;
  switch (shape.kind) {
    case "tick": {
      const { x, y } = at(scan, shape.x, shape.y);
      page.drawSvgPath("M -0.55 0 L -0.15 0.45 L 0.6 -0.6", { x, y, scale: unit, borderColor: MARK_RED, borderWidth: 2.2 / unit, borderLineCap: LineCapStyle.Round });
      return;
    }
    case "cross": {
      const { x, y } = at(scan, shape.x, shape.y);
      page.drawSvgPath("M -0.45 -0.45 L 0.45 0.45 M 0.45 -0.45 L -0.45 0.45", { x, y, scale: unit, borderColor: MARK_RED, borderWidth: 2.2 / unit, borderLineCap: LineCapStyle.Round });
      return;
    }
    case "highlight": {
      const topLeft = at(scan, shape.x, shape.y);
      page.drawRectangle({
        x: topLeft.x,
        y: topLeft.y - shape.height * scan.height,
        width: shape.width * scan.width,
        height: shape.height * scan.height,
        color: HIGHLIGHT,
        opacity: 0.35,
        blendMode: BlendMode.Multiply,
      });
      return;
    }
    case "pen": {
      // A polyline, each segment as wide as the pen pressed at its two ends (0.6–3 points).
      for (let index = 1; index < shape.points.length; index++) {
        const [x0, y0, p0] = shape.points[index - 1]!;
        const [x1, y1, p1] = shape.points[index]!;
        page.drawLine({
          start: at(scan, x0, y0),
          end: at(scan, x1, y1),
          thickness: 0.6 + 2.4 * ((p0 + p1) / 2),
          color: MARK_RED,
          lineCap: LineCapStyle.Round,
        });
      }
      if (shape.points.length === 1) {
        const [x, y, p] = shape.points[0]!;
        page.drawCircle({ ...at(scan, x, y), size: 0.3 + 1.2 * p, color: MARK_RED });
      }
      return;
    }
    case "text":
    case "stamp": {
      const font = shape.kind === "stamp" ? fonts.bold : fonts.regular;
      const colour = shape.kind === "stamp" ? STAMP_BLUE : MARK_RED;
      const size = 8;
      const anchor = at(scan, shape.x, shape.y);
      const maxWidth = Math.max(60, Math.min(180, scan.width - anchor.x - 4));
      const lines = capped(wrapText(drawableText(shape.text, font), font, size, maxWidth - 8), SHAPE_LINES, font, size, maxWidth - 8);
      const boxWidth = Math.max(...lines.map((line) => textWidth(line, font, size))) + 8;
      const boxHeight = lines.length * (size + 2) + 6;
      // Kept on the page: moved left or up when the anchor is near the right or bottom edge.
      const x = Math.max(0, Math.min(anchor.x, scan.width - boxWidth));
      const top = Math.min(scan.height, Math.max(anchor.y, boxHeight));
      page.drawRectangle({ x, y: top - boxHeight, width: boxWidth, height: boxHeight, color: rgb(1, 1, 1), opacity: 0.85, borderColor: colour, borderWidth: shape.kind === "stamp" ? 1.2 : 0.7 });
      lines.forEach((line, index) => page.drawText(line, { x: x + 4, y: top - 3 - size - index * (size + 2), size, font, color: colour }));
      return;
    }
  }
}
