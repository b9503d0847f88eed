import { PDFDocument, StandardFonts, rgb } from "pdf-lib";

/**
 * A generated template paper for the box finder (server/exam/ticks/find-boxes.ts): on page 2 of an A4
 * paper, a multiple-choice question with rows of square and round tick boxes (letters and answers
 * beside them, a heading in large capitals with round letters in it), a ruled answer box with writing
 * lines below them (not tick boxes) and a tick box outside the question's area. The truth: the
 * boxes inside the area in reading order, as page fractions of their outer edges.
 */

const MM = 72 / 25.4;
const A4 = { width: 210 * MM, height: 297 * MM };

export interface DrawnBox {
  label: string;
  shape: "square" | "round";
  /** The outline's outer edge, in millimetres from the page's top-left. */
  x: number;
  y: number;
  size: number;
}

/** The question's area, in page fractions (as the editor would draw it). */
export const tickPaperArea = { page: 2, x: 20 / 210, y: 36 / 297, width: 170 / 210, height: 114 / 297 };

export async function tickBoxPaper(): Promise<{ pdf: Uint8Array; boxes: DrawnBox[]; pageWidthMm: number; pageHeightMm: number }> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const bold = await document.embedFont(StandardFonts.HelveticaBold);
  const cover = document.addPage([A4.width, A4.height]);
  cover.drawText("Science paper 1", { x: 20 * MM, y: A4.height - 30 * MM, size: 24, font: bold });
  const page = document.addPage([A4.width, A4.height]);
  const line = 0.75;
  const ink = rgb(0, 0, 0);
  const text = (value: string, xMm: number, yMm: number, size = 11, face = font) => page.drawText(value, { x: xMm * MM, y: A4.height - yMm * MM, size, font: face, color: ink });

  // Outside the area (above it): a box that must not be found.
  page.drawRectangle({ x: 30 * MM, y: A4.height - 25 * MM, width: 5 * MM, height: 5 * MM, borderColor: ink, borderWidth: line });
  text("Do not write outside the boxes.", 40, 24);

  text("QUIZ 0: ODD ONE OUT", 25, 45, 16, bold);
  text("1  Which gas do plants take in? Tick one box.", 25, 52);

  const boxes: DrawnBox[] = [];
  const square = (label: string, xMm: number, yMm: number, size: number, answer: string) => {
    // pdf-lib strokes the path's middle: the outline's outer edge is half a line outside it.
    const half = line / 2 / MM;
    page.drawRectangle({ x: (xMm + half) * MM, y: A4.height - (yMm + size - half) * MM, width: (size - 2 * half) * MM, height: (size - 2 * half) * MM, borderColor: ink, borderWidth: line });
    text(label, xMm - 6, yMm + size - 1.2, 11, bold);
    text(answer, xMm + size + 3, yMm + size - 1.2);
    boxes.push({ label, shape: "square", x: xMm, y: yMm, size });
  };
  const round = (label: string, xMm: number, yMm: number, size: number, answer: string) => {
    const half = line / 2 / MM;
    page.drawCircle({ x: (xMm + size / 2) * MM, y: A4.height - (yMm + size / 2) * MM, size: (size / 2 - half) * MM, borderColor: ink, borderWidth: line });
    text(label, xMm - 6, yMm + size - 1.5, 11, bold);
    text(answer, xMm + size + 3, yMm + size - 1.5);
    boxes.push({ label, shape: "round", x: xMm, y: yMm, size });
  };
  // Two columns of squares, then a row of circles, then two larger squares.
  square("A", 35, 58, 5, "Oxygen");
  square("B", 105, 58, 5, "Carbon dioxide");
  square("C", 35, 68, 5, "Nitrogen");
  square("D", 105, 68, 5, "Hydrogen");
  text("2  Which is a solid at room temperature? Tick one circle.", 25, 84);
  round("E", 35, 88, 6, "Iron");
  round("F", 75, 88, 6, "Mercury");
  round("G", 115, 88, 6, "Oxygen");
  round("H", 155, 88, 6, "Bromine");
  square("I", 35, 99, 9, "True");
  square("J", 105, 99, 9, "False");

  // A ruled answer box with writing lines: not a tick box.
  text("3  Explain your answer to question 2.", 25, 116);
  page.drawRectangle({ x: 25 * MM, y: A4.height - 146 * MM, width: 160 * MM, height: 27 * MM, borderColor: ink, borderWidth: line });
  for (let y = 127; y < 146; y += 8) page.drawLine({ start: { x: 28 * MM, y: A4.height - y * MM }, end: { x: 182 * MM, y: A4.height - y * MM }, thickness: 0.5, color: rgb(0.3, 0.3, 0.3) });

  return { pdf: await document.save(), boxes, pageWidthMm: 210, pageHeightMm: 297 };
}
