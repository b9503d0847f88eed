import { PDFDocument, type PDFFont, type PDFPage, StandardFonts, rgb } from "pdf-lib";
import sharp from "sharp";
import { openForRendering } from "../../server/exam/intake/imaging/pdfjs";
import { seededRandom } from "./seeded-random";

/**
 * Exam papers with their truth, for the template reader (issue 37): vector PDFs drawn with pdf-lib in
 * the layouts schools print, and the same papers scanned. Seeded: the same seed, the same paper.
 *
 * Layouts (one per paper, or "mixed": each question its own): answers in a ruled box, on ruled lines,
 * or in open space up to the next question; tick-box questions (a row of boxes A–D); questions with
 * parts (a), (b) and sub-parts (i), (ii); marks at the right as "[3 marks]", "(3)", "3 marks" or "[3]";
 * "Total for Question 3 is 5 marks" under a question; one or two columns; a cover with a name box
 * ("Name", "Candidate name") and the paper's stated total ("Total: 40 marks").
 *
 * The truth is what a template should hold: per question and part, its label as printed ("3(b)(i)"),
 * its maximum marks, its page and answer area (page fractions, origin top left); tick boxes; the name
 * box; the stated total. Areas are defined as the reader is told to find them (docs/decisions/
 * exam-marking.md, "the template reader"): a box is its outline; ruled lines are their horizontal extent, from one line's
 * spacing above the first line down to the last; open space runs from 3 mm under the part's last line
 * of text to 6 mm above the next text's baseline (the next part, the question's total line, the footer);
 * tick boxes are their union with 2 mm round it.
 *
 * Faults a paper may carry on purpose (the reader must say them): the cover's total is not the sum of
 * the marks, a "Total for Question" disagrees with its parts, a part's marks are not printed.
 */

const MM = 72 / 25.4;
const PAGE_WIDTH = 595.28;
const PAGE_HEIGHT = 841.89;
const INK = rgb(0.1, 0.1, 0.12);
const RULE = rgb(0.25, 0.25, 0.28);
const GREY = rgb(0.4, 0.4, 0.45);
/** Text size of questions and marks (points); the line step of a stem (mm). */
const TEXT = 10;
const LINE_MM = 5;
const FOOTER_BASELINE = 287;
/** Lowest point (mm) the body may reach: open space may stretch to the footer's text less 6 mm. */
const BODY_BOTTOM = FOOTER_BASELINE - 6;

export type AnswerLayout = "boxed" | "ruled" | "open";
export type PaperLayout = AnswerLayout | "mixed";
export type MarksStyle = "brackets-marks" | "parentheses" | "plain-marks" | "brackets";

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface TruthQuestion {
  label: string;
  parent_label: string | null;
  /** The part's marks (a question with parts: the total of its parts). */
  max_marks: number;
  /** Whether the paper prints this part's marks beside it (false: left out on purpose, or a question with parts). */
  marks_printed: boolean;
  /** Null for a question with parts. */
  page: number | null;
  area: Rect | null;
  kind: "written" | "ticks" | null;
  /** How the answer space is printed (null for a question with parts). */
  answer: AnswerLayout | "ticks" | null;
  tick_boxes?: Rect[];
}

export interface TruthPaper {
  seed: number;
  layout: PaperLayout;
  columns: 1 | 2;
  marksStyle: MarksStyle;
  pageCount: number;
  questions: TruthQuestion[];
  name_box: (Rect & { page: number }) | null;
  stated_total: number | null;
  /** The sum of every part's marks (the truth; the cover may say otherwise). */
  total: number;
  /** The faults printed on purpose, each of which the reader must say. */
  faults: Fault[];
}

type Fault = { kind: "cover-total"; says: number } | { kind: "question-total"; question: string; says: number } | { kind: "marks-missing"; label: string };

export interface PaperOptions {
  seed: number;
  layout?: PaperLayout;
  columns?: 1 | 2;
  marksStyle?: MarksStyle;
  /** Default: from the seed (most papers have one). */
  cover?: boolean;
  /** Questions (default 5–9 from the seed). */
  questions?: number;
  /** Print "Total for Question N is M marks" under each question with parts (default: from the seed). */
  questionTotals?: boolean;
  /** Put a fault on the paper (default: a third of seeds get one). */
  faults?: boolean;
  /** Which fault (with `faults`): default from the seed. A question total needs a question with parts and `questionTotals`; a cover total a cover. */
  fault?: Fault["kind"];
  /** Least pages: more questions are added until the paper has at least this many. */
  minPages?: number;
  /** false: no tick-box questions (their place taken by written ones); default: from the seed. */
  ticks?: boolean;
  /** A question's shape by its number: 0 a written question on its own, n its parts (a), (b) … written; others from the seed. */
  partsOf?: Record<number, number>;
}

export interface GeneratedPaper {
  bytes: Uint8Array;
  truth: TruthPaper;
}

interface Leaf {
  label: string;
  printed: string;
  depth: 0 | 1 | 2;
  marks: number;
  marksPrinted: boolean;
  answer: AnswerLayout | "ticks";
  stem: string;
}

interface Column {
  left: number;
  right: number;
}

const STEMS = [
  "Explain why the rate of reaction increases when the temperature is raised.",
  "Describe how you would measure the volume of gas produced.",
  "Calculate the mean of the five results in the table.",
  "State one hazard of this experiment.",
  "Suggest why the student repeated the experiment.",
  "Give the name of the process shown in the diagram.",
  "Evaluate the two methods of reducing the pollution.",
  "Write a balanced equation for the reaction.",
  "Compare the structure of an animal cell with a plant cell.",
  "Identify the independent variable.",
  "Show that the resistance of the wire is about 4 ohms.",
  "Complete the sentence about the energy transfer.",
];
const TICK_STEMS = ["Which of these is a noble gas? Tick one box.", "Which unit is used for power? Tick one box.", "Which organ makes insulin? Tick one box."];
const ROMAN = ["i", "ii", "iii", "iv"];

export async function examPaper(options: PaperOptions): Promise<GeneratedPaper> {
  const random = seededRandom(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const layout = options.layout ?? pick<PaperLayout>(["boxed", "ruled", "open", "mixed"]);
  const columns = options.columns ?? (random() < 0.25 ? 2 : 1);
  const marksStyle = options.marksStyle ?? pick<MarksStyle>(["brackets-marks", "parentheses", "plain-marks", "brackets"]);
  const cover = options.cover ?? random() < 0.7;
  const questionTotals = options.questionTotals ?? random() < 0.5;
  const withFaults = options.faults ?? random() < 0.34;
  const answerOf = (): AnswerLayout => (layout === "mixed" ? pick<AnswerLayout>(["boxed", "ruled", "open"]) : layout);

  // The questions: leaves in order, with their labels.
  interface Question {
    number: number;
    stem: string | null;
    leaves: Leaf[];
    /** Part containers with sub-parts: their label and stem. */
    containers: Map<string, string>;
  }
  const makeQuestion = (number: number): Question => {
    const shape = random();
    const leafOf = (label: string, printed: string, depth: Leaf["depth"], answer: Leaf["answer"]): Leaf => ({
      label,
      printed,
      depth,
      marks: answer === "ticks" ? 1 : 1 + Math.floor(random() * (columns === 2 ? 4 : 6)),
      marksPrinted: true,
      answer,
      stem: answer === "ticks" ? pick(TICK_STEMS) : pick(STEMS),
    });
    const ticks = (): Leaf["answer"] => (options.ticks === false ? answerOf() : "ticks");
    const asked = options.partsOf?.[number];
    if (asked === 0) return { number, stem: null, leaves: [leafOf(`${number}`, `${number}`, 0, answerOf())], containers: new Map() };
    if (asked !== undefined) {
      const asAsked = Array.from({ length: asked }, (_, part) => leafOf(`${number}(${"abcdefgh"[part]})`, `(${"abcdefgh"[part]})`, 1, answerOf()));
      return { number, stem: "The student investigated the reaction shown below.", leaves: asAsked, containers: new Map() };
    }
    if (shape < 0.15) return { number, stem: null, leaves: [leafOf(`${number}`, `${number}`, 0, ticks())], containers: new Map() };
    if (shape < 0.45) return { number, stem: null, leaves: [leafOf(`${number}`, `${number}`, 0, answerOf())], containers: new Map() };
    const leaves: Leaf[] = [];
    const containers = new Map<string, string>();
    const parts = 2 + Math.floor(random() * 2);
    for (let part = 0; part < parts; part++) {
      const letter = "abcd"[part]!;
      if (shape > 0.8 && part === parts - 1) {
        containers.set(`${number}(${letter})`, pick(STEMS));
        for (let sub = 0; sub < 2; sub++) leaves.push(leafOf(`${number}(${letter})(${ROMAN[sub]})`, `(${ROMAN[sub]})`, 2, answerOf()));
      } else {
        leaves.push(leafOf(`${number}(${letter})`, `(${letter})`, 1, shape > 0.7 && part === 0 ? ticks() : answerOf()));
      }
    }
    return { number, stem: "The student investigated the reaction shown below.", leaves, containers };
  };
  const questions: Question[] = [];
  const count = options.questions ?? 5 + Math.floor(random() * 5);
  for (let number = 1; number <= count; number++) questions.push(makeQuestion(number));

  const faults: Fault[] = [];
  const questionTotalSays = new Map<number, number>();
  let coverSays: number | null = null;
  const total = () => questions.reduce((sum, question) => sum + question.leaves.reduce((s, leaf) => s + leaf.marks, 0), 0);
  if (withFaults) {
    const drawn = pick(["cover-total", "question-total", "marks-missing"] as const);
    const kind = options.fault ?? drawn;
    const withParts = questions.filter((question) => question.leaves.length > 1);
    if (kind === "question-total" && withParts.length > 0 && questionTotals) {
      const question = pick(withParts);
      const sum = question.leaves.reduce((s, leaf) => s + leaf.marks, 0);
      questionTotalSays.set(question.number, sum + 1);
      faults.push({ kind: "question-total", question: `${question.number}`, says: sum + 1 });
    } else if (kind === "marks-missing") {
      const leaf = pick(questions.flatMap((question) => question.leaves.filter((l) => l.answer !== "ticks")));
      if (leaf) {
        leaf.marksPrinted = false;
        faults.push({ kind: "marks-missing", label: leaf.label });
      }
    }
    if (faults.length === 0 && cover) {
      coverSays = total() + (random() < 0.5 ? 2 : -1);
      faults.push({ kind: "cover-total", says: coverSays });
    }
  }

  const pdf = await PDFDocument.create({ updateMetadata: false });
  pdf.setCreationDate(new Date("2026-01-05T09:00:00Z"));
  pdf.setModificationDate(new Date("2026-01-05T09:00:00Z"));
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const X = (mm: number) => mm * MM;
  const Y = (mm: number) => PAGE_HEIGHT - mm * MM;
  const fraction = (left: number, top: number, right: number, bottom: number): Rect => ({
    x: (left * MM) / PAGE_WIDTH,
    y: (top * MM) / PAGE_HEIGHT,
    width: ((right - left) * MM) / PAGE_WIDTH,
    height: ((bottom - top) * MM) / PAGE_HEIGHT,
  });
  const text = (page: PDFPage, value: string, left: number, baseline: number, size = TEXT, face: PDFFont = font) => page.drawText(value, { x: X(left), y: Y(baseline), size, font: face, color: INK });
  const rightText = (page: PDFPage, value: string, right: number, baseline: number, face: PDFFont = font) => text(page, value, right - face.widthOfTextAtSize(value, TEXT) / MM, baseline, TEXT, face);
  const widthMm = (value: string, face: PDFFont = font) => face.widthOfTextAtSize(value, TEXT) / MM;
  const wrap = (value: string, width: number): string[] => {
    const lines: string[] = [];
    let line = "";
    for (const word of value.split(" ")) {
      const next = line ? `${line} ${word}` : word;
      if (line && widthMm(next) > width) {
        lines.push(line);
        line = word;
      } else line = next;
    }
    if (line) lines.push(line);
    return lines;
  };
  const marksText = (marks: number) =>
    ({ "brackets-marks": `[${marks} ${marks === 1 ? "mark" : "marks"}]`, parentheses: `(${marks})`, "plain-marks": `${marks} ${marks === 1 ? "mark" : "marks"}`, brackets: `[${marks}]` })[marksStyle];

  const truthQuestions: TruthQuestion[] = [];
  let nameBox: TruthPaper["name_box"] = null;
  const title = pick(["Combined Science: Paper 1", "Chemistry mock examination", "Physics end of unit test", "Biology paper 2"]);
  const pages: PDFPage[] = [];
  const newPage = () => {
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    pages.push(page);
    text(page, title, 15, 12, 9, font);
    return page;
  };

  if (cover) {
    const page = newPage();
    text(page, title, 20, 45, 20, bold);
    text(page, "Time allowed: 1 hour 15 minutes", 20, 58, 11);
    const nameLabel = pick(["Name", "Candidate name"]);
    text(page, nameLabel, 20, 80, 11, bold);
    const boxLeft = 20 + bold.widthOfTextAtSize(nameLabel, 11) / MM + 5;
    page.drawRectangle({ x: X(boxLeft), y: Y(86), width: (190 - boxLeft) * MM, height: 12 * MM, borderColor: INK, borderWidth: 0.8 });
    nameBox = { page: 1, ...fraction(boxLeft, 74, 190, 86) };
    text(page, "Class", 20, 100, 11, bold);
    page.drawRectangle({ x: X(boxLeft), y: Y(104), width: 40 * MM, height: 10 * MM, borderColor: INK, borderWidth: 0.8 });
    text(page, "Answer all questions in the spaces provided.", 20, 125, 11);
    text(page, "The marks for each question are shown in brackets.", 20, 132, 11);
    const stated = coverSays ?? total();
    text(page, pick([`Total: ${stated} marks`, `Total marks: ${stated}`, `The total mark for this paper is ${stated}.`]), 20, 142, 11, bold);
  }

  const columnsOf: Column[] = columns === 2 ? [{ left: 15, right: 100 }, { left: 110, right: 195 }] : [{ left: 15, right: 195 }];
  let page = newPage();
  let column = 0;
  let cursor = 22; // baseline of the next line of text (mm)
  /** The last open area placed in the current column, stretched to the column's end when the column ends. */
  let openTail: { truth: TruthQuestion; top: number; left: number; right: number } | null = null;
  const endColumn = () => {
    if (openTail) openTail.truth.area = fraction(openTail.left, openTail.top, openTail.right, BODY_BOTTOM);
    openTail = null;
    if (column + 1 < columnsOf.length) column++;
    else {
      page = newPage();
      column = 0;
    }
    cursor = 22;
  };
  const col = () => columnsOf[column]!;

  const leafHeight = (leaf: Leaf, stemLines: number) => {
    const area = leaf.answer === "ticks" ? 12 : leaf.answer === "boxed" ? 12 + leaf.marks * 6 : leaf.answer === "ruled" ? (2 + Math.min(leaf.marks, 6)) * 8 : 15 + leaf.marks * 6;
    return (stemLines - 1) * LINE_MM + 3 + area + 8;
  };
  /** A label's left edge, and its text's, by depth (0: a question, 1: a part, 2: a sub-part), from the column's left. */
  const labelX = (depth: number) => (depth === 0 ? 0 : 10 + (depth - 1) * 8);
  const textX = (depth: number) => 10 + depth * 8;

  for (const question of questions) {
    const number = `${question.number}`;
    const sum = question.leaves.reduce((s, leaf) => s + leaf.marks, 0);
    const hasParts = question.leaves.length > 1;
    if (hasParts) truthQuestions.push({ label: number, parent_label: null, max_marks: sum, marks_printed: false, page: null, area: null, kind: null, answer: null });
    const containersDone = new Set<string>();
    for (const [index, leaf] of question.leaves.entries()) {
      const c = col();
      const textLeft = c.left + textX(leaf.depth);
      const marks = leaf.marksPrinted ? marksText(leaf.marks) : "";
      const stem = wrap(leaf.stem, c.right - textLeft - widthMm(marksText(9)) - 4);
      const containerLabel = leaf.depth === 2 ? leaf.label.replace(/\([ivx]+\)$/, "") : null;
      const headLines = (index === 0 && question.stem ? wrap(question.stem, c.right - c.left - 14).length : 0) + (containerLabel && !containersDone.has(containerLabel) ? 1 : 0);
      const isLast = index === question.leaves.length - 1;
      const totalLine = isLast && hasParts && questionTotals;
      const needed = headLines * LINE_MM + leafHeight(leaf, stem.length) + (totalLine ? 8 : 0);
      if (cursor + needed > BODY_BOTTOM) endColumn();
      const cc = col();
      const left = cc.left + textX(leaf.depth);
      if (index === 0) text(page, number, cc.left, cursor, 11, bold);
      if (index === 0 && question.stem) {
        for (const line of wrap(question.stem, cc.right - cc.left - 14)) {
          text(page, line, cc.left + 10, cursor);
          cursor += LINE_MM;
        }
      }
      if (containerLabel && !containersDone.has(containerLabel)) {
        containersDone.add(containerLabel);
        const letter = containerLabel.slice(number.length);
        text(page, letter, cc.left + 10, cursor);
        text(page, wrap(question.containers.get(containerLabel)!, cc.right - cc.left - 24)[0]!, cc.left + 18, cursor);
        const containerMarks = question.leaves.filter((l) => l.label.startsWith(containerLabel)).reduce((s, l) => s + l.marks, 0);
        truthQuestions.push({ label: containerLabel, parent_label: number, max_marks: containerMarks, marks_printed: false, page: null, area: null, kind: null, answer: null });
        cursor += LINE_MM;
      }
      if (leaf.depth > 0) text(page, leaf.printed, cc.left + labelX(leaf.depth), cursor);
      // Stem lines; the marks at the right of the last.
      stem.forEach((line, lineIndex) => {
        text(page, line, left, cursor + lineIndex * LINE_MM);
      });
      const lastBaseline = cursor + (stem.length - 1) * LINE_MM;
      if (marks) rightText(page, marks, cc.right, lastBaseline);
      const truth: TruthQuestion = {
        label: leaf.label,
        parent_label: leaf.depth === 0 ? null : leaf.depth === 1 ? number : leaf.label.replace(/\([ivx]+\)$/, ""),
        max_marks: leaf.marks,
        marks_printed: leaf.marksPrinted,
        page: pages.length,
        area: null,
        kind: leaf.answer === "ticks" ? "ticks" : "written",
        answer: leaf.answer,
      };
      truthQuestions.push(truth);
      const top = lastBaseline + 3;
      let bottom: number;
      openTail = null;
      if (leaf.answer === "ticks") {
        const boxes: Rect[] = [];
        const side = 6;
        const spread = Math.min(30, (cc.right - left - 10) / 4);
        for (let option = 0; option < 4; option++) {
          const boxLeft = left + 6 + option * spread;
          page.drawRectangle({ x: X(boxLeft), y: Y(top + 1 + side), width: side * MM, height: side * MM, borderColor: INK, borderWidth: 0.8 });
          text(page, "ABCD"[option]!, boxLeft - 4.5, top + 5.5, TEXT, bold);
          boxes.push(fraction(boxLeft, top + 1, boxLeft + side, top + 1 + side));
        }
        truth.tick_boxes = boxes;
        const first = left + 6;
        const last = left + 6 + 3 * spread + side;
        truth.area = fraction(first - 2, top + 1 - 2, last + 2, top + 1 + side + 2);
        bottom = top + 12;
      } else if (leaf.answer === "boxed") {
        const height = 12 + leaf.marks * 6;
        page.drawRectangle({ x: X(left), y: Y(top + height), width: (cc.right - left) * MM, height: height * MM, borderColor: INK, borderWidth: 0.8 });
        truth.area = fraction(left, top, cc.right, top + height);
        bottom = top + height;
      } else if (leaf.answer === "ruled") {
        const lines = 2 + Math.min(leaf.marks, 6);
        for (let line = 1; line <= lines; line++) page.drawLine({ start: { x: X(left), y: Y(top + line * 8) }, end: { x: X(cc.right), y: Y(top + line * 8) }, thickness: 0.6, color: RULE });
        truth.area = fraction(left, top, cc.right, top + lines * 8);
        bottom = top + lines * 8;
      } else {
        const height = 15 + leaf.marks * 6;
        truth.area = fraction(left, top, cc.right, top + height);
        openTail = { truth, top, left, right: cc.right };
        bottom = top + height;
      }
      cursor = bottom + 6;
      if (totalLine) {
        const says = questionTotalSays.get(question.number) ?? sum;
        rightText(page, `Total for Question ${number} is ${says} marks`, cc.right, cursor, bold);
        openTail = null;
        cursor += 10;
      } else if (leaf.answer !== "open") cursor += 2;
      else if (isLast) cursor += 4;
      // Open space ends 6 mm above the next baseline: the next text follows at exactly that.
      if (openTail && isLast) {
        // The next question's number line is at `cursor`; open space ends 6 mm above it.
        openTail.truth.area = fraction(openTail.left, openTail.top, openTail.right, cursor - 6);
      }
    }
    // Keep the question's gap: the next question begins 4 mm further down (already counted above).
  }
  // The last open space runs to the foot of its column.
  const tail: { truth: TruthQuestion; top: number; left: number; right: number } | null = openTail;
  if (tail) tail.truth.area = fraction(tail.left, tail.top, tail.right, BODY_BOTTOM);
  if (options.minPages && pages.length < options.minPages) {
    return examPaper({ ...options, questions: count + Math.max(2, Math.ceil((options.minPages - pages.length) * (columns === 2 ? 6 : 3))) });
  }
  pages.forEach((p, index) => {
    const footer = `Page ${index + 1} of ${pages.length}`;
    p.drawText(footer, { x: X(105) - font.widthOfTextAtSize(footer, 8) / 2, y: Y(FOOTER_BASELINE), size: 8, font, color: GREY });
  });
  return {
    bytes: await pdf.save(),
    truth: {
      seed: options.seed,
      layout,
      columns,
      marksStyle,
      pageCount: pages.length,
      questions: truthQuestions,
      name_box: nameBox,
      stated_total: cover ? (coverSays ?? total()) : null,
      total: total(),
      faults,
    },
  };
}

// ── Scanned ───────────────────────────────────────────────────────────────────────────────────────

export interface ScannedPaper {
  bytes: Uint8Array;
  /** The truth moved as the scan moved each page (areas: the bounding box of the turned rectangle). */
  truth: TruthPaper;
}

/**
 * A paper printed and scanned as tests/support/scanned-pile.ts scans a pile: each page rendered by pdfjs
 * at 150–200 dpi, turned up to 1° and shifted up to 3 mm on the glass, with sensor noise, lowered
 * contrast, a slight blur and JPEG. The truth's rectangles are moved the same way.
 */
export async function scannedPaper(paper: GeneratedPaper, seed = paper.truth.seed): Promise<ScannedPaper> {
  const random = seededRandom(seed * 7919 + 1);
  const source = await openForRendering(paper.bytes);
  const out = await PDFDocument.create({ updateMetadata: false });
  const moves: ((rect: Rect) => Rect)[] = [];
  try {
    for (let pageNumber = 1; pageNumber <= source.pageCount; pageNumber++) {
      const dpi = 150 + Math.round(random() * 50);
      const angle = (((random() * 2 - 1) * 1) / 180) * Math.PI;
      const scale = dpi / 72;
      const [w, h] = [PAGE_WIDTH * scale, PAGE_HEIGHT * scale];
      const shift = () => ((random() * 2 - 1) * 3 * dpi) / 25.4;
      const [dx, dy] = [shift(), shift()];
      const [cos, sin] = [Math.cos(angle), Math.sin(angle)];
      const [cx, cy] = [w / 2, h / 2];
      const transform: [number, number, number, number, number, number] = [cos, sin, -sin, cos, cx - cos * cx + sin * cy + dx, cy - sin * cx - cos * cy + dy];
      const image = await source.render(pageNumber, dpi, transform);
      const noisy = new Uint8Array(image.data.length);
      for (let index = 0; index < noisy.length; index++) {
        const value = image.data[index]! + Math.round((random() + random() + random() - 1.5) * 12);
        noisy[index] = value < 0 ? 0 : value > 255 ? 255 : value;
      }
      const { data } = await sharp(noisy, { raw: { width: image.width, height: image.height, channels: 1 } })
        .blur(0.6)
        .linear((240 - 30) / 255, 30)
        .jpeg({ quality: 84 })
        .toBuffer({ resolveWithObject: true });
      const jpg = await out.embedJpg(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      const page = out.addPage([(image.width / dpi) * 72, (image.height / dpi) * 72]);
      page.drawImage(jpg, { x: 0, y: 0, width: page.getWidth(), height: page.getHeight() });
      moves.push((rect) => {
        const corners = [
          [rect.x, rect.y],
          [rect.x + rect.width, rect.y],
          [rect.x, rect.y + rect.height],
          [rect.x + rect.width, rect.y + rect.height],
        ].map(([fx, fy]) => {
          const [px, py] = [fx! * w, fy! * h];
          return [(cos * px - sin * py + transform[4]) / image.width, (sin * px + cos * py + transform[5]) / image.height] as const;
        });
        const xs = corners.map((corner) => corner[0]);
        const ys = corners.map((corner) => corner[1]);
        return { x: Math.min(...xs), y: Math.min(...ys), width: Math.max(...xs) - Math.min(...xs), height: Math.max(...ys) - Math.min(...ys) };
      });
    }
  } finally {
    await source.close();
  }
  const move = (page: number | null, rect: Rect | null) => (page && rect ? moves[page - 1]!(rect) : rect);
  const truth: TruthPaper = {
    ...paper.truth,
    questions: paper.truth.questions.map((question) => ({
      ...question,
      area: move(question.page, question.area),
      ...(question.tick_boxes ? { tick_boxes: question.tick_boxes.map((box) => move(question.page, box)!) } : {}),
    })),
    name_box: paper.truth.name_box ? { page: paper.truth.name_box.page, ...move(paper.truth.name_box.page, paper.truth.name_box)! } : null,
  };
  return { bytes: await out.save(), truth };
}

/** Intersection over union of two rectangles. */
export function iou(a: Rect, b: Rect): number {
  const ix = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x));
  const iy = Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
  const inter = ix * iy;
  const union = a.width * a.height + b.width * b.height - inter;
  return union > 0 ? inter / union : 0;
}

/** The corpus of the benchmark and tests: every layout, one and two columns, every marks style, faults on some. */
export function corpusOptions(count: number, firstSeed = 1): PaperOptions[] {
  const layouts: PaperLayout[] = ["boxed", "ruled", "open", "mixed"];
  const styles: MarksStyle[] = ["brackets-marks", "parentheses", "plain-marks", "brackets"];
  return Array.from({ length: count }, (_, index) => ({
    seed: firstSeed + index,
    layout: layouts[index % layouts.length],
    marksStyle: styles[Math.floor(index / layouts.length) % styles.length],
    columns: index % 5 === 4 ? 2 : 1,
    cover: index % 3 !== 2,
  }));
}
