import {
  PDFDocument,
  type PDFFont,
  type PDFPage,
  StandardFonts,
  degrees,
  popGraphicsState,
  pushGraphicsState,
  rectangle,
  rgb,
  setLineWidth,
  setStrokingRgbColor,
  stroke,
} from "pdf-lib";
import type { TickBox } from "../../../lib/rules/tick-boxes";
import { type Answer, type Choices, demoPaper, demoPaperQuestions, demoPaperTotalMarks } from "./data";

/**
 * The demo paper drawn with pdf-lib: a cover and three question pages (A4) from data.ts.
 * The same code that draws an answer box records its rectangle, so the template's response areas sit
 * exactly on the boxes.
 */

/** A rectangle drawn on the paper, page-relative: 0–1 on both axes, y measured from the top. */
interface DrawnArea {
  label: string;
  page: number;
  kind: "response" | "context";
  responseForm: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** A multiple-choice area's printed tick boxes, page-relative as the area (lib/rules/tick-boxes.ts). */
  tickBoxes?: TickBox[];
}

/** The vertical span of a question on one page, page-relative from the top. */
interface DrawnBoundary {
  label: string;
  page: number;
  top: number;
  bottom: number;
}

export interface GeneratedPaper {
  bytes: Uint8Array;
  pageCount: number;
  areas: DrawnArea[];
  boundaries: DrawnBoundary[];
  /** Around the cover's Surname, Forename(s) and Candidate number boxes, their labels included (page-relative). */
  nameBox: { page: number; x: number; y: number; width: number; height: number };
}

// A4 in points, and the layout grid.
const PAGE_WIDTH = 595.28;
const PAGE_HEIGHT = 841.89;
const LEFT = 60;
const RIGHT = PAGE_WIDTH - 50;
const CONTENT_TOP = 88;
const CONTENT_BOTTOM = PAGE_HEIGHT - 70;
/** Columns of a question page: number, part letter or stem, part text. Answer boxes start at STEM_X. */
const NUMBER_X = 46;
const STEM_X = 72;
const PART_TEXT_X = 102;
const INK = rgb(0.1, 0.1, 0.12);
const GREY = rgb(0.45, 0.45, 0.5);
const PAGE_COUNT = 4;
/** A printed tick box's side: 5 mm. */
const CHOICE_BOX = (5 * 72) / 25.4;
/** Fixed dates keep the file byte-for-byte reproducible (same sha256 on every seed). */
const PAPER_DATE = new Date("2026-01-05T09:00:00Z");

const round = (value: number) => Math.round(value * 1e6) / 1e6;

/** Draws the paper top-down with a cursor; every coordinate it is given is measured from the top. */
class PaperWriter {
  readonly areas: DrawnArea[] = [];
  readonly boundaries: DrawnBoundary[] = [];
  private page!: PDFPage;
  private pageNumber = 0;
  private y = CONTENT_TOP;
  private readonly open = new Map<string, number>();

  constructor(
    private readonly doc: PDFDocument,
    private readonly regular: PDFFont,
    private readonly bold: PDFFont,
  ) {}

  text(value: string, x: number, top: number, options: { size?: number; font?: PDFFont; color?: typeof INK } = {}) {
    const size = options.size ?? 11;
    // pdf-lib places text by its baseline, from the bottom of the page.
    this.page.drawText(value, { x, y: PAGE_HEIGHT - top - size, size, font: options.font ?? this.regular, color: options.color ?? INK });
  }

  rightText(value: string, right: number, top: number, options: { size?: number; font?: PDFFont } = {}) {
    const font = options.font ?? this.regular;
    this.text(value, right - font.widthOfTextAtSize(value, options.size ?? 11), top, options);
  }

  line(x1: number, top1: number, x2: number, top2: number, thickness = 1, dashed = false) {
    this.page.drawLine({
      start: { x: x1, y: PAGE_HEIGHT - top1 },
      end: { x: x2, y: PAGE_HEIGHT - top2 },
      thickness,
      color: INK,
      dashArray: dashed ? [1, 2] : undefined,
    });
  }

  /** A plain `re` rectangle: easy to find again in the page's content (tests do). */
  box(x: number, top: number, width: number, height: number, lineWidth = 0.8) {
    this.page.pushOperators(
      pushGraphicsState(),
      setLineWidth(lineWidth),
      setStrokingRgbColor(0.1, 0.1, 0.12),
      rectangle(x, PAGE_HEIGHT - top - height, width, height),
      stroke(),
      popGraphicsState(),
    );
  }

  record(area: Omit<DrawnArea, "page" | "x" | "y" | "width" | "height">, x: number, top: number, width: number, height: number) {
    this.areas.push({
      ...area,
      page: this.pageNumber,
      x: round(x / PAGE_WIDTH),
      y: round(top / PAGE_HEIGHT),
      width: round(width / PAGE_WIDTH),
      height: round(height / PAGE_HEIGHT),
    });
  }

  newPage() {
    // A question that runs on to the next page gets one boundary per page.
    for (const [label, top] of this.open) this.pushBoundary(label, top, CONTENT_BOTTOM);
    this.page = this.doc.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    this.pageNumber += 1;
    this.y = CONTENT_TOP;
    for (const label of this.open.keys()) this.open.set(label, this.y - 6);
    if (this.pageNumber > 1) this.questionPageFurniture();
    this.rightText(`Page ${this.pageNumber} of ${PAGE_COUNT}`, PAGE_WIDTH / 2 + 30, PAGE_HEIGHT - 45, { size: 9 });
    if (this.pageNumber < PAGE_COUNT) this.rightText("Turn over", RIGHT, PAGE_HEIGHT - 45, { size: 9, font: this.bold });
  }

  private questionPageFurniture() {
    this.text(demoPaper.examCode, LEFT, 40, { size: 9, color: GREY });
    this.rightText("Northfield Academy mock examination", RIGHT, 40, { size: 9 });
    this.line(LEFT, 58, RIGHT, 58, 0.6);
    // The margin note of real papers: scanners and markers ignore anything written there.
    this.page.drawText("Do not write outside the box", {
      x: 30,
      y: PAGE_HEIGHT / 2 - 70,
      size: 8,
      font: this.regular,
      color: GREY,
      rotate: degrees(90),
    });
  }

  openBoundary(label: string) {
    this.open.set(label, this.y - 6);
  }

  closeBoundary(label: string) {
    const top = this.open.get(label);
    if (top === undefined) return;
    // The cursor stands below the marks line and its gap: end just under the marks.
    this.pushBoundary(label, top, this.y - 12);
    this.open.delete(label);
  }

  private pushBoundary(label: string, top: number, bottom: number) {
    this.boundaries.push({ label, page: this.pageNumber, top: round(top / PAGE_HEIGHT), bottom: round(bottom / PAGE_HEIGHT) });
  }

  paragraph(lines: string[], x: number) {
    for (const value of lines) {
      this.text(value, x, this.y);
      this.y += 17;
    }
  }

  questionNumber(printed: string, x: number) {
    this.text(printed, x, this.y, { font: this.bold, size: 12 });
  }

  /** Working space with the answer line at its foot, then the marks, as exam boards print them. */
  answerSpace(label: string, answer: Answer, marks: number) {
    const x = STEM_X;
    const width = RIGHT - x;
    this.box(x, this.y, width, answer.height);
    this.record({ label, kind: "response", responseForm: "working_and_answer" }, x, this.y, width, answer.height);
    const lineTop = this.y + answer.height - 22;
    const lineRight = RIGHT - 12 - (answer.suffix ? this.regular.widthOfTextAtSize(answer.suffix, 11) + 6 : 0);
    const lineLeft = lineRight - 150;
    this.rightText(`Answer${answer.prefix ? `   ${answer.prefix}` : ""}`, lineLeft - 8, lineTop);
    this.line(lineLeft, lineTop + 11, lineRight, lineTop + 11, 0.8, true);
    if (answer.suffix) this.text(answer.suffix, lineRight + 6, lineTop);
    this.y += answer.height + 6;
    this.rightText(`[${marks} mark${marks === 1 ? "" : "s"}]`, RIGHT, this.y, { font: this.bold, size: 10 });
    this.y += 28;
  }

  /**
   * A multiple-choice answer area: the options in a row, each a letter, a square tick box (5 mm, as exam
   * boards print them) and the option's text, inside a box recorded as the response area with its tick boxes.
   */
  choiceSpace(label: string, answer: Answer, choices: Choices, marks: number) {
    const x = STEM_X;
    const width = RIGHT - x;
    const top = this.y;
    this.box(x, top, width, answer.height);
    const side = CHOICE_BOX;
    const boxTop = top + (answer.height - side) / 2;
    const tickBoxes: TickBox[] = choices.options.map((option, index) => {
      const letter = String.fromCharCode(65 + index);
      const left = x + 40 + index * 100;
      this.text(letter, left - 16, boxTop + 3, { font: this.bold });
      this.page.drawRectangle({ x: left, y: PAGE_HEIGHT - boxTop - side, width: side, height: side, borderColor: INK, borderWidth: 0.9 });
      this.text(option, left + side + 8, boxTop + 3);
      return { label: letter, x: round(left / PAGE_WIDTH), y: round(boxTop / PAGE_HEIGHT), width: round(side / PAGE_WIDTH), height: round(side / PAGE_HEIGHT), shape: "square" };
    });
    this.record({ label, kind: "response", responseForm: "multiple_choice" }, x, top, width, answer.height);
    this.areas.at(-1)!.tickBoxes = tickBoxes;
    this.y += answer.height + 6;
    this.rightText(`[${marks} mark${marks === 1 ? "" : "s"}]`, RIGHT, this.y, { font: this.bold, size: 10 });
    this.y += 28;
  }

  /** Right-angled triangle ABC: AB = 6 cm up, BC = 8 cm across, the right angle at B. */
  rightTriangle(label: string) {
    const height = 140;
    const top = this.y;
    const scale = 13; // points per centimetre of the (not accurate) drawing
    const bx = PART_TEXT_X + 50;
    const by = top + 20 + 6 * scale;
    const ax = bx;
    const ay = by - 6 * scale;
    const cx = bx + 8 * scale;
    const cy = by;
    this.line(ax, ay, bx, by, 1.2);
    this.line(bx, by, cx, cy, 1.2);
    this.line(cx, cy, ax, ay, 1.2);
    this.line(bx, by - 9, bx + 9, by - 9, 0.8);
    this.line(bx + 9, by - 9, bx + 9, by, 0.8);
    this.text("A", ax - 14, ay - 6, { font: this.bold });
    this.text("B", bx - 14, by - 4, { font: this.bold });
    this.text("C", cx + 6, cy - 4, { font: this.bold });
    this.text("6 cm", ax - 42, (ay + by) / 2 - 6, { size: 10 });
    this.text("8 cm", (bx + cx) / 2 - 12, by + 6, { size: 10 });
    this.record({ label, kind: "context", responseForm: "diagram" }, PART_TEXT_X, top, 220, height);
    this.y += height + 10;
  }

  get cursor() {
    return this.y;
  }

  set cursor(value: number) {
    this.y = value;
  }
}

/** The cover's name fields: label and box, from the top of the page. */
const NAME_FIELDS: [string, number][] = [
  ["Surname", 250],
  ["Forename(s)", 286],
  ["Candidate number", 322],
];
const NAME_FIELD_HEIGHT = 26;

/** The name box of the cover: the three fields with a little margin, page-relative. */
function coverNameBox(): GeneratedPaper["nameBox"] {
  const margin = 6;
  const top = NAME_FIELDS[0]![1] - margin;
  const bottom = NAME_FIELDS.at(-1)![1] + NAME_FIELD_HEIGHT + margin;
  const left = LEFT - margin;
  const right = RIGHT + margin;
  return { page: 1, x: round(left / PAGE_WIDTH), y: round(top / PAGE_HEIGHT), width: round((right - left) / PAGE_WIDTH), height: round((bottom - top) / PAGE_HEIGHT) };
}

function drawCover(writer: PaperWriter, bold: PDFFont) {
  writer.newPage();
  writer.text(demoPaper.board, LEFT, 50, { font: bold, size: 12 });
  writer.rightText(demoPaper.examCode, RIGHT, 50, { size: 10 });
  writer.text("GCSE", LEFT, 110, { size: 14 });
  writer.text("Mathematics", LEFT, 130, { font: bold, size: 30 });
  writer.text("Paper 1  (Non-calculator)   Higher Tier", LEFT, 172, { size: 14 });
  writer.text("Mock examination, June 2026", LEFT, 194, { size: 12 });
  writer.text("Time allowed: 1 hour", LEFT, 214, { font: bold, size: 12 });

  for (const [name, top] of NAME_FIELDS) {
    writer.text(name, LEFT, top + 8, { size: 10 });
    writer.box(LEFT + 110, top, RIGHT - LEFT - 110, NAME_FIELD_HEIGHT);
  }

  writer.text("Materials", LEFT, 380, { font: bold });
  writer.text("You must have a ruler, a protractor and a pair of compasses. You must not use a calculator.", LEFT, 398, { size: 10 });
  writer.text("Instructions", LEFT, 428, { font: bold });
  const instructions = [
    "Use black ink or black ball-point pen. Draw diagrams in pencil.",
    "Fill in the boxes at the top of this page.",
    "Answer all questions in the spaces provided. Do not write outside the boxes.",
    "Show your working: marks may be given for a correct method even if the answer is wrong.",
    "Cross through any work you do not want to be marked.",
  ];
  instructions.forEach((value, index) => writer.text(`-  ${value}`, LEFT, 446 + index * 16, { size: 10 }));
  writer.text("Information", LEFT, 540, { font: bold });
  const information = [
    "The marks for each question are shown in brackets.",
    `The maximum mark for this paper is ${demoPaperTotalMarks}.`,
    `There are ${demoPaperQuestions.length} questions on ${PAGE_COUNT} pages.`,
  ];
  information.forEach((value, index) => writer.text(`-  ${value}`, LEFT, 558 + index * 16, { size: 10 }));

  // The examiner's table: one row per question and the total.
  const tableLeft = RIGHT - 170;
  const rowHeight = 20;
  const rows = [...demoPaperQuestions.map((question) => question.label), "TOTAL"];
  const tableTop = 630;
  writer.text("For Examiner's Use", tableLeft, tableTop - 18, { font: bold, size: 10 });
  writer.box(tableLeft, tableTop, 170, rowHeight * (rows.length + 1));
  writer.text("Question", tableLeft + 8, tableTop + 5, { size: 10, font: bold });
  writer.text("Mark", tableLeft + 100, tableTop + 5, { size: 10, font: bold });
  rows.forEach((label, index) => {
    const top = tableTop + rowHeight * (index + 1);
    writer.line(tableLeft, top, tableLeft + 170, top, 0.6);
    writer.text(label, tableLeft + 8, top + 5, { size: 10 });
  });
  writer.line(tableLeft + 90, tableTop, tableLeft + 90, tableTop + rowHeight * (rows.length + 1), 0.6);
}

/** Draws the demo paper and returns its bytes with the rectangles of its answer spaces and figures. */
export async function generateDemoPaper(): Promise<GeneratedPaper> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setTitle(demoPaper.title);
  doc.setAuthor(demoPaper.board);
  doc.setSubject(`${demoPaper.subject} (${demoPaper.examCode})`);
  doc.setCreator("Markbook demo seed");
  doc.setProducer("pdf-lib");
  doc.setCreationDate(PAPER_DATE);
  doc.setModificationDate(PAPER_DATE);
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const writer = new PaperWriter(doc, regular, bold);

  drawCover(writer, bold);
  writer.newPage();
  for (const question of demoPaperQuestions) {
    if (question.startsNewPage) writer.newPage();
    writer.openBoundary(question.label);
    writer.questionNumber(question.label, NUMBER_X);
    if (question.text.length > 0) {
      writer.paragraph(question.text, STEM_X);
      writer.cursor += 6;
    }
    if (question.diagram === "right-triangle") writer.rightTriangle(question.label);
    if (question.leaf?.choices) writer.choiceSpace(question.label, question.leaf.answer, question.leaf.choices, question.leaf.marks);
    else if (question.leaf) writer.answerSpace(question.label, question.leaf.answer, question.leaf.marks);
    for (const part of question.parts ?? []) {
      if (part.startsNewPage) writer.newPage();
      writer.openBoundary(part.label);
      writer.questionNumber(part.printed, STEM_X);
      writer.paragraph(part.text, PART_TEXT_X);
      writer.cursor += 4;
      writer.answerSpace(part.label, part.answer, part.marks);
      writer.closeBoundary(part.label);
    }
    writer.closeBoundary(question.label);
    writer.cursor += 10;
  }
  writer.text("END OF QUESTIONS", PAGE_WIDTH / 2 - 55, writer.cursor + 10, { font: bold, size: 12 });

  const bytes = await doc.save({ useObjectStreams: false });
  return { bytes, pageCount: doc.getPageCount(), areas: writer.areas, boundaries: writer.boundaries, nameBox: coverNameBox() };
}
