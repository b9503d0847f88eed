import { AppError } from "../../../errors";

/**
 * What the marked script's PDF is made from (issue 35, items 4 and 5): plain data, no database, so the
 * renderer runs in a worker process and is tested with documents built by hand. Staff's loader
 * (load.ts) and, after the merge, the student's read model fill it in. Geometry is as stored
 * (server/db/schema/returns.ts): page-relative 0–1, origin at the top left of the page as it is shown
 * (after the scan page's own /Rotate).
 */

/** A page-relative rectangle, 0–1, origin top left (as response areas and highlights). */
interface PageRectangle {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One annotation as drawn on the page: only the layer the reader may see (the loader chooses it). */
export type MarkedAnnotation =
  | { kind: "tick" | "cross"; x: number; y: number }
  /** A text comment or a stamped rubric item: its words in a box whose top left corner is at (x, y). */
  | { kind: "text" | "stamp"; x: number; y: number; text: string }
  | { kind: "highlight"; x: number; y: number; width: number; height: number }
  /** A stroke: [x, y, pressure 0–1] per point; the line is wider where the pen pressed harder. */
  | { kind: "pen"; points: [number, number, number][] };

export interface MarkedQuestion {
  /** As the paper names it: "3b". */
  label: string;
  max: number;
  /** Null: not marked (a blank the marker skipped, or an incomplete script). */
  awarded: number | null;
  comment: string | null;
  /** The words of the rubric items the marker ticked for this question. */
  rubricItems: string[];
  /** Where the answer is on the scan (1-based page of the script); its mark and comment go beside the first one. */
  responseAreas: (PageRectangle & { page: number })[];
}

export interface RevisePoint {
  /** The specification point as the curriculum graph names it. */
  name: string;
  lost: number;
  available: number;
}

/** The cover sheet: everything of the script but its scan (what feedback on paper prints, item 5). */
export interface CoverSheet {
  /** The student's display name, or "Script 17" in an anonymous batch (the loader decides, never the renderer). */
  who: string;
  batchTitle: string;
  paperTitle: string;
  questions: MarkedQuestion[];
  total: { awarded: number; max: number };
  revise: RevisePoint[];
}

/** One student's marked script: the cover, and the scan with what the markers drew on it. */
export interface MarkedScriptDocument extends CoverSheet {
  /** The script's scan as stored: a PDF, one page per page of the script, embedded as it is. */
  scan: Uint8Array;
  /** Annotations by 1-based page of the scan; a page without any may be left out. */
  annotations: { page: number; shapes: MarkedAnnotation[] }[];
}

/**
 * What one document may hold. The database already bounds each row (an annotation's text ≤ 2,000
 * characters, its geometry ≤ 256 kB); these bound the whole, so one script cannot hold the worker for
 * minutes or fill its heap. Far above any real script (a busy marker draws tens of shapes a page).
 */
export const markedPdfLimits = {
  scanBytes: 64 * 1024 * 1024,
  scanPages: 100,
  annotations: 2_000,
  /** All the points of all the pen strokes of one script. */
  penPoints: 200_000,
  questions: 300,
  rubricItemsPerQuestion: 50,
  revisePoints: 200,
  /** Characters. */
  name: 200,
  title: 300,
  label: 50,
  /** As a mark's comment may be (markUpsertBody). */
  comment: 10_000,
  shapeText: 2_000,
  /** All the scans of one class PDF (held together until it is saved; a zip holds one at a time). */
  classScanBytes: 128 * 1024 * 1024,
  /** Students in one class PDF or zip. */
  students: 500,
} as const;

const count = (value: number) => value.toLocaleString("en-GB");

/** `who` is the script's own name, for the sentence: "Zoë's script cannot be made into a PDF: …". */
function refuse(who: string, why: string): AppError {
  return new AppError("invalid", `The PDF of ${shortName(who)} cannot be made: ${why}.`);
}

function shortName(who: unknown): string {
  if (typeof who !== "string" || who.trim() === "") return "this script";
  const trimmed = who.trim();
  return trimmed.length > 60 ? `${trimmed.slice(0, 59)}…` : trimmed;
}

const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const inUnit = (value: unknown) => isNumber(value) && value >= 0 && value <= 1;

function checkText(who: string, value: unknown, what: string, max: number, nullable = false) {
  if (value === null && nullable) return;
  if (typeof value !== "string") throw refuse(who, `${what} is not text`);
  if (value.length > max) throw refuse(who, `${what} is ${count(value.length)} characters long, more than the ${count(max)} it may have`);
}

/** Checks a cover sheet against markedPdfLimits; the first thing wrong is refused with a sentence. */
export function checkCoverSheet(sheet: CoverSheet): void {
  const who = shortName(sheet?.who);
  checkText(who, sheet.who, "the student's name", markedPdfLimits.name);
  checkText(who, sheet.batchTitle, "the batch's title", markedPdfLimits.title);
  checkText(who, sheet.paperTitle, "the paper's title", markedPdfLimits.title);
  if (!Array.isArray(sheet.questions)) throw refuse(who, "it has no list of questions");
  if (sheet.questions.length > markedPdfLimits.questions) {
    throw refuse(who, `it has ${count(sheet.questions.length)} questions, more than the ${count(markedPdfLimits.questions)} a paper may have`);
  }
  for (const question of sheet.questions) {
    checkText(who, question.label, "a question's label", markedPdfLimits.label);
    if (!isNumber(question.max) || question.max < 0) throw refuse(who, `question ${question.label} has no valid maximum mark`);
    if (question.awarded !== null && !isNumber(question.awarded)) throw refuse(who, `question ${question.label} has no valid mark`);
    checkText(who, question.comment, `the comment on question ${question.label}`, markedPdfLimits.comment, true);
    if (!Array.isArray(question.rubricItems) || question.rubricItems.length > markedPdfLimits.rubricItemsPerQuestion) {
      throw refuse(who, `question ${question.label} has more than ${markedPdfLimits.rubricItemsPerQuestion} rubric items`);
    }
    for (const item of question.rubricItems) checkText(who, item, `a rubric item of question ${question.label}`, markedPdfLimits.comment);
    if (!Array.isArray(question.responseAreas)) throw refuse(who, `question ${question.label} has no list of response areas`);
    for (const area of question.responseAreas) {
      if (!(Number.isInteger(area.page) && area.page >= 1 && inUnit(area.x) && inUnit(area.y) && inUnit(area.width) && inUnit(area.height))) {
        throw refuse(who, `a response area of question ${question.label} is not on a page`);
      }
    }
  }
  if (!isNumber(sheet.total?.awarded) || !isNumber(sheet.total?.max)) throw refuse(who, "its total is not a number");
  if (!Array.isArray(sheet.revise) || sheet.revise.length > markedPdfLimits.revisePoints) {
    throw refuse(who, `its list of what to revise is longer than ${markedPdfLimits.revisePoints}`);
  }
  for (const point of sheet.revise) {
    checkText(who, point.name, "a point to revise", markedPdfLimits.title);
    if (!isNumber(point.lost) || !isNumber(point.available)) throw refuse(who, `the marks of "${shortName(point.name)}" are not numbers`);
  }
}

/** Checks a whole document (cover, scan size, annotations) against markedPdfLimits. */
export function checkMarkedScript(document: MarkedScriptDocument): void {
  checkCoverSheet(document);
  const who = shortName(document.who);
  if (!(document.scan instanceof Uint8Array) || document.scan.byteLength === 0) throw refuse(who, "its scan is empty");
  if (document.scan.byteLength > markedPdfLimits.scanBytes) {
    throw refuse(who, `its scan is ${Math.round(document.scan.byteLength / 1024 / 1024)} MB, more than the ${markedPdfLimits.scanBytes / 1024 / 1024} MB one script may be`);
  }
  if (!Array.isArray(document.annotations)) throw refuse(who, "it has no list of annotations");
  let shapes = 0;
  let points = 0;
  for (const page of document.annotations) {
    if (!Number.isInteger(page.page) || page.page < 1 || !Array.isArray(page.shapes)) throw refuse(who, "an annotation is on no page");
    shapes += page.shapes.length;
    if (shapes > markedPdfLimits.annotations) {
      throw refuse(who, `it has more than ${count(markedPdfLimits.annotations)} annotations, the most one script may have`);
    }
    for (const shape of page.shapes) {
      switch (shape?.kind) {
        case "tick":
        case "cross":
          if (!(inUnit(shape.x) && inUnit(shape.y))) throw refuse(who, `a ${shape.kind} on page ${page.page} is not on the page`);
          break;
        case "text":
        case "stamp":
          if (!(inUnit(shape.x) && inUnit(shape.y))) throw refuse(who, `a ${shape.kind} on page ${page.page} is not on the page`);
          checkText(who, shape.text, `a ${shape.kind === "text" ? "comment" : "stamp"} on page ${page.page}`, markedPdfLimits.shapeText);
          break;
        case "highlight":
          if (!(inUnit(shape.x) && inUnit(shape.y) && inUnit(shape.width) && inUnit(shape.height))) {
            throw refuse(who, `a highlight on page ${page.page} is not on the page`);
          }
          break;
        case "pen":
          if (!Array.isArray(shape.points)) throw refuse(who, `a pen stroke on page ${page.page} has no points`);
          points += shape.points.length;
          if (points > markedPdfLimits.penPoints) {
            throw refuse(who, `its pen strokes have more than ${count(markedPdfLimits.penPoints)} points, the most one script may have`);
          }
          for (const point of shape.points) {
            if (!(Array.isArray(point) && inUnit(point[0]) && inUnit(point[1]) && inUnit(point[2]))) {
              throw refuse(who, `a pen stroke on page ${page.page} leaves the page`);
            }
          }
          break;
        default:
          throw refuse(who, `an annotation on page ${page.page} is of no kind the PDF can draw`);
      }
    }
  }
}
