import { PDFDocument, StandardFonts, rgb } from "pdf-lib";
import type { PageRect } from "../../server/exam/intake/stamp";
import type { TickAreaToRead, WrittenAreaToRead } from "../../server/exam/ticks/reading";

/**
 * A test paper for reading ticks (issue 36): A4 pages, each with tick-box questions (a row of four boxes
 * A–D, square on some questions and round on others, the letter beside each box, or inside a round
 * bubble) and written answer areas (a ruled box, a one-line box with printed words inside it, a big box
 * for a single digit). Its layout is recorded as the template would hold it: page fractions, origin top
 * left. Print it with stampScripts(…, keepClear) like a real batch.
 */

const MM = 72 / 25.4;
const WIDTH = 595.28;
const HEIGHT = 841.89;
const INK = rgb(0.1, 0.1, 0.12);
const GREY = rgb(0.45, 0.45, 0.5);

interface TickPaperPage {
  page: number;
  tickAreas: TickAreaToRead[];
  writtenAreas: (WrittenAreaToRead & { kind: "lines" | "answer-line" | "digit" })[];
}

export interface TickPaper {
  bytes: Uint8Array;
  pages: TickPaperPage[];
  /** Every area, for stampScripts's keepClear (the stamp goes where none is). */
  keepClear: PageRect[];
  pageSizes: { width: number; height: number }[];
}

export interface TickPaperOptions {
  /** 2–4 pages; default 3. */
  pages?: number;
  /** Tick-box questions a page; default 6. */
  questionsPerPage?: number;
}

export async function tickPaper({ pages = 3, questionsPerPage = 6 }: TickPaperOptions = {}): Promise<TickPaper> {
  const pdf = await PDFDocument.create({ updateMetadata: false });
  pdf.setCreationDate(new Date("2026-01-05T09:00:00Z"));
  pdf.setModificationDate(new Date("2026-01-05T09:00:00Z"));
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const layout: TickPaperPage[] = [];
  const keepClear: PageRect[] = [];
  let question = 0;
  // Top-down millimetres to PDF points (origin bottom left).
  const X = (mm: number) => mm * MM;
  const Y = (mm: number) => HEIGHT - mm * MM;
  const fraction = (left: number, top: number, width: number, height: number) => ({ x: (left * MM) / WIDTH, y: (top * MM) / HEIGHT, width: (width * MM) / WIDTH, height: (height * MM) / HEIGHT });
  for (let pageNumber = 1; pageNumber <= pages; pageNumber++) {
    const page = pdf.addPage([WIDTH, HEIGHT]);
    const record: TickPaperPage = { page: pageNumber, tickAreas: [], writtenAreas: [] };
    page.drawText(`Science practice paper — page ${pageNumber}`, { x: X(20), y: Y(22), size: 13, font: bold, color: INK });
    page.drawText("Answer every question. Tick one box unless told otherwise.", { x: X(20), y: Y(29), size: 9, font, color: GREY });
    let top = 48;
    for (let q = 0; q < questionsPerPage; q++) {
      question++;
      const round = q % 2 === 1;
      const lettersInside = round && q % 4 === 3;
      page.drawText(`${question}. Which of these is ${["a metal", "an acid", "a noble gas", "a mixture", "a compound", "an alkali"][q % 6]}?`, { x: X(20), y: Y(top + 3), size: 10, font, color: INK });
      const boxes = [];
      const side = 6;
      for (let option = 0; option < 4; option++) {
        const label = "ABCD"[option]!;
        const left = 34 + option * 30;
        const boxTop = top + 7;
        if (round) {
          page.drawEllipse({ x: X(left + side / 2), y: Y(boxTop + side / 2), xScale: (side / 2) * MM, yScale: (side / 2) * MM, borderColor: INK, borderWidth: 0.8 });
        } else {
          page.drawRectangle({ x: X(left), y: Y(boxTop + side), width: side * MM, height: side * MM, borderColor: INK, borderWidth: 0.8 });
        }
        if (lettersInside) page.drawText(label, { x: X(left + side / 2 - 1), y: Y(boxTop + side / 2 + 1.2), size: 7, font, color: GREY });
        else page.drawText(label, { x: X(left - 5), y: Y(boxTop + 4.5), size: 10, font: bold, color: INK });
        page.drawText(["iron", "water", "argon", "air", "salt", "soap", "neon", "sugar"][(option + q) % 8]!, { x: X(left + side + 2.5), y: Y(boxTop + 4.5), size: 9, font, color: GREY });
        boxes.push({ label, ...fraction(left, boxTop, side, side), shape: round ? ("round" as const) : ("square" as const) });
      }
      const id = `q${question}`;
      record.tickAreas.push({ id, boxes });
      const first = boxes[0]!;
      const last = boxes[boxes.length - 1]!;
      keepClear.push({ page: pageNumber, x: first.x, y: first.y, width: last.x + last.width - first.x, height: first.height });
      top += 19;
    }
    // Written areas: a ruled box, a line with printed words inside it, a big box for one digit.
    question++;
    page.drawText(`${question}. Explain what happens when the acid is added.`, { x: X(20), y: Y(top + 3), size: 10, font, color: INK });
    const ruled = { left: 20, top: top + 6, width: 170, height: 30 };
    page.drawRectangle({ x: X(ruled.left), y: Y(ruled.top + ruled.height), width: ruled.width * MM, height: ruled.height * MM, borderColor: INK, borderWidth: 0.8 });
    for (let line = 1; line <= 3; line++) page.drawLine({ start: { x: X(ruled.left + 4), y: Y(ruled.top + line * 8) }, end: { x: X(ruled.left + ruled.width - 4), y: Y(ruled.top + line * 8) }, thickness: 0.4, color: GREY });
    record.writtenAreas.push({ id: `q${question}`, kind: "lines", ...fraction(ruled.left, ruled.top, ruled.width, ruled.height) });
    top += 42;
    question++;
    page.drawText(`${question}. How long is the magnesium ribbon?`, { x: X(20), y: Y(top + 3), size: 10, font, color: INK });
    const line = { left: 20, top: top + 6, width: 90, height: 12 };
    page.drawRectangle({ x: X(line.left), y: Y(line.top + line.height), width: line.width * MM, height: line.height * MM, borderColor: INK, borderWidth: 0.8 });
    page.drawText("Length:", { x: X(line.left + 2.5), y: Y(line.top + 8), size: 10, font, color: INK });
    page.drawText("cm", { x: X(line.left + line.width - 9), y: Y(line.top + 8), size: 10, font, color: INK });
    page.drawLine({ start: { x: X(line.left + 18), y: Y(line.top + 9) }, end: { x: X(line.left + line.width - 11), y: Y(line.top + 9) }, thickness: 0.4, color: GREY, dashArray: [1.5, 1.5] });
    record.writtenAreas.push({ id: `q${question}`, kind: "answer-line", ...fraction(line.left, line.top, line.width, line.height) });
    question++;
    page.drawText(`${question}. How many atoms?`, { x: X(125), y: Y(top + 3), size: 10, font, color: INK });
    const digit = { left: 140, top: top + 6, width: 22, height: 22 };
    page.drawRectangle({ x: X(digit.left), y: Y(digit.top + digit.height), width: digit.width * MM, height: digit.height * MM, borderColor: INK, borderWidth: 0.8 });
    record.writtenAreas.push({ id: `q${question}`, kind: "digit", ...fraction(digit.left, digit.top, digit.width, digit.height) });
    for (const area of record.writtenAreas) keepClear.push({ page: pageNumber, x: area.x, y: area.y, width: area.width, height: area.height });
    page.drawText(`Page ${pageNumber} of ${pages}`, { x: X(95), y: Y(287), size: 8, font, color: GREY });
    layout.push(record);
  }
  return { bytes: await pdf.save(), pages: layout, keepClear, pageSizes: layout.map(() => ({ width: WIDTH, height: HEIGHT })) };
}
