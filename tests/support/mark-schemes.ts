import { PDFDocument, StandardFonts, rgb } from "pdf-lib";
import { seededRandom } from "./seeded-random";

/**
 * Mark schemes with their truth, for the mark-scheme reader (issue 37, item 3): for a paper's parts
 * (labels and marks, as tests/support/exam-papers.ts's truth gives them), a scheme as pasted text in
 * the layouts schools use, and as a PDF table ("Question | Answer | Marks | Guidance"). Seeded: the same
 * seed, the same scheme.
 *
 * Text layouts: "table" (a row per item, cells separated by " | " or tabs, the label in the first row
 * of its part), "lines" (the label alone on its line, then "M1 for …", "A1 …", "1 mark for …" lines),
 * "inline" (the label then the item on one line, "3a M1 for …"). Labels as "3(a)(i)", "3 a i", "3ai" or
 * "3a(i)". Items: M/A/B codes (B2 worth 2), "1 mark for …", "… (1)". A "Total for Question N is M
 * marks" line may follow a question.
 *
 * The truth is per canonical label ("3(a)(i)") the items as the reader gives them: text and points.
 */

export type SchemeLayout = "table" | "lines" | "inline";
export type LabelStyle = "brackets" | "spaced" | "joined" | "mixed";

export interface SchemePart {
  label: string;
  marks: number;
}

interface TruthItem {
  text: string;
  points: number;
}

export interface GeneratedScheme {
  text: string;
  layout: SchemeLayout;
  labelStyle: LabelStyle;
  /** Per canonical label, its items in order. */
  truth: Record<string, TruthItem[]>;
}

const ANSWERS = [
  "2x = 6",
  "x = 3",
  "correct units",
  "energy is transferred to the surroundings",
  "the rate increases",
  "mean = 4.2",
  "any valid hazard",
  "diffusion",
  "chlorophyll absorbs light",
  "resistance = 4 ohms",
  "a control variable",
  "oxygen is released",
];
const GUIDANCE = ["allow heat", "ignore units", "accept 4.20", "do not accept 'it gets faster'", "ecf from (a)"];

/** A label as printed in `style`: "3(a)(i)" → "3 a i", "3ai", "3a(i)". */
function printedLabel(label: string, style: Exclude<LabelStyle, "mixed">): string {
  const match = /^(\d+)(?:\(([a-z])\))?(?:\(([ivx]+)\))?$/.exec(label);
  if (!match) return label;
  const [, question, part, sub] = match;
  if (style === "brackets") return label;
  if (style === "spaced") return [question, part, sub].filter(Boolean).join(" ");
  return `${question}${part ?? ""}${sub ? (style === "joined" && part ? sub : `(${sub})`) : ""}`;
}

/** Splits `marks` into items: codes M1/A1/B1/B2, or "1 mark for" / "(1)". */
function itemsFor(marks: number, pick: <T>(items: readonly T[]) => T, random: () => number): { code: string | null; points: number; answer: string; guidance: string | null; style: "code" | "counted" | "bracket" }[] {
  const items: ReturnType<typeof itemsFor> = [];
  let left = marks;
  while (left > 0) {
    const style = pick(["code", "code", "code", "counted", "bracket"] as const);
    const points = left >= 2 && random() < 0.25 ? 2 : 1;
    const code = style === "code" ? (points === 2 ? "B2" : pick(["M1", "A1", "B1"])) : null;
    items.push({ code, points, answer: pick(ANSWERS), guidance: random() < 0.3 ? pick(GUIDANCE) : null, style });
    left -= points;
  }
  return items;
}

const composed = (code: string | null, description: string) => [code ? `${code}${code.startsWith("M") ? " (method)" : ""}` : "", description].filter((part) => part.length > 0).join(" ");

export function markScheme(parts: SchemePart[], seed: number, options: { layout?: SchemeLayout; labelStyle?: LabelStyle; totals?: boolean } = {}): GeneratedScheme {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const layout = options.layout ?? pick<SchemeLayout>(["table", "lines", "inline"]);
  const labelStyle = options.labelStyle ?? pick<LabelStyle>(["brackets", "spaced", "joined", "mixed"]);
  const totals = options.totals ?? random() < 0.4;
  const styleOf = (): Exclude<LabelStyle, "mixed"> => (labelStyle === "mixed" ? pick(["brackets", "spaced", "joined"] as const) : labelStyle);
  const lines: string[] = [];
  const truth: Record<string, TruthItem[]> = {};
  if (layout === "table") lines.push(pick(["Question | Answer | Marks | Guidance", "Question\tAnswer\tMarks\tGuidance"]));
  const separator = pick([" | ", "\t"]);
  let lastQuestion: string | null = null;
  let questionSum = 0;
  const closeQuestion = () => {
    if (totals && lastQuestion !== null) lines.push(`Total for Question ${lastQuestion} is ${questionSum} marks`);
  };
  for (const part of parts) {
    const question = /^\d+/.exec(part.label)![0];
    if (question !== lastQuestion) {
      closeQuestion();
      lastQuestion = question;
      questionSum = 0;
    }
    questionSum += part.marks;
    const printed = printedLabel(part.label, styleOf());
    const items = itemsFor(part.marks, pick, random);
    truth[part.label] = [];
    if (layout === "lines") lines.push(printed);
    items.forEach((item, index) => {
      const label = layout === "table" ? (index === 0 ? printed : "") : layout === "inline" && index === 0 ? printed : "";
      let line: string;
      let description: string;
      if (layout === "table") {
        // Answer | Marks | Guidance: the marks a code or a number.
        const marksCell = item.code ?? String(item.points);
        line = [label, item.answer, marksCell, item.guidance ?? ""].join(separator).replace(/(?:\s*\|\s*|\t)+$/, "");
        description = item.guidance ? `${item.answer} (${item.guidance})` : item.answer;
        truth[part.label]!.push({ text: composed(item.code, description), points: item.points });
        lines.push(line);
        return;
      }
      description = item.guidance ? `${item.answer}; ${item.guidance}` : item.answer;
      if (item.style === "code") line = `${item.code} for ${description}`;
      else if (item.style === "counted") line = `${item.points} mark${item.points === 1 ? "" : "s"} for ${description}`;
      else line = `${description} (${item.points})`;
      truth[part.label]!.push({ text: composed(item.code, description), points: item.points });
      lines.push(label ? `${label} ${line}` : `    ${line.trimStart()}`);
    });
  }
  closeQuestion();
  return { text: lines.join("\n"), layout, labelStyle, truth };
}

/** The scheme as a PDF table: the header, then per item a row (label, answer, marks, guidance) at fixed columns. */
export async function markSchemePdf(parts: SchemePart[], seed: number): Promise<GeneratedScheme & { bytes: Uint8Array }> {
  const scheme = markScheme(parts, seed, { layout: "table" });
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const columns = [40, 100, 330, 390];
  let page = pdf.addPage([595.28, 841.89]);
  let y = 800;
  const row = (cells: string[], face = font) => {
    if (y < 60) {
      page = pdf.addPage([595.28, 841.89]);
      y = 800;
    }
    cells.forEach((cell, index) => {
      if (cell.length > 0) page.drawText(cell, { x: columns[index]!, y, size: 9, font: face, color: rgb(0.1, 0.1, 0.1) });
    });
    page.drawLine({ start: { x: 36, y: y - 4 }, end: { x: 560, y: y - 4 }, thickness: 0.4, color: rgb(0.5, 0.5, 0.5) });
    y -= 16;
  };
  row(["Question", "Answer", "Marks", "Guidance"], bold);
  for (const line of scheme.text.split("\n").slice(1)) {
    if (line.startsWith("Total")) {
      row(["", line]);
      continue;
    }
    const cells = line.split(/ \| |\t/);
    row([cells[0] ?? "", cells[1] ?? "", cells[2] ?? "", cells[3] ?? ""]);
  }
  return { ...scheme, bytes: await pdf.save() };
}

/** The parts of a paper's truth that take marks (leaves), as a scheme needs them. */
export function partsOfPaper(questions: { label: string; max_marks: number; parent_label: string | null }[]): SchemePart[] {
  const parents = new Set(questions.map((question) => question.parent_label).filter((label): label is string => label !== null));
  return questions.filter((question) => !parents.has(question.label)).map((question) => ({ label: question.label, marks: question.max_marks }));
}

/** A paper's parts as the paper generator makes them (questions 1–9, parts (a)–(c), sub-parts (i)–(iii), 1–6 marks), from a seed. */
export function paperParts(seed: number): SchemePart[] {
  const random = seededRandom(seed * 7919 + 1);
  const count = 4 + Math.floor(random() * 6);
  const parts: SchemePart[] = [];
  const marks = () => 1 + Math.floor(random() * 6);
  for (let question = 1; question <= count; question++) {
    const shape = random();
    if (shape < 0.45) {
      parts.push({ label: String(question), marks: marks() });
      continue;
    }
    const letters = "abc".slice(0, 2 + Math.floor(random() * 2));
    for (const letter of letters) {
      if (random() < 0.25) {
        for (const sub of ["i", "ii", "iii"].slice(0, 2 + Math.floor(random() * 2))) parts.push({ label: `${question}(${letter})(${sub})`, marks: marks() });
      } else parts.push({ label: `${question}(${letter})`, marks: marks() });
    }
  }
  return parts;
}
