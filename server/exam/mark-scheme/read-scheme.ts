/**
 * A mark scheme read into proposed rubric items (issue 37, item 3): pure, from plain text (pasted) or
 * from a PDF's lines (read-scheme-pdf.ts gives its table rows as lines with their cells).
 *
 * The layouts it understands (docs/decisions/exam-marking.md, “Mark schemes in”, says the same):
 * - Rows grouped by question label, the label first on its line: "1", "3(a)", "3(b)(i)", "3 a", "3ai",
 *   "3a(i)", "Q3(a)", "Question 3(a)". A label alone on its line starts a question; a label followed by
 *   text is a row of the usual "Question | Answer | Marks | Guidance" table (cells separated by "|",
 *   tabs, or two spaces or more, as a PDF's or a word processor's table pastes).
 * - An item is a line (or a row) with its marks: a mark code first or last ("M1 for 2x = 6",
 *   "x = 3 A1", "B2", "A1ft", "M1dep"), "1 mark for …", "2 marks: …", or "(1)" / "[1]" at its end.
 *   An M code is a method mark and says so. A row whose answer is in one cell and code in another is one
 *   item: the answer, then the guidance in brackets.
 * - A line without marks after an item continues it (its guidance); before any item of its question it
 *   is the answer the next code-only line gives marks to.
 * - "Total for Question 3 is 5 marks", "Total: 5", "Total 5 marks" after a question's items: the marks
 *   the scheme itself states for the question, checked against its items.
 * - The table's header ("Question Answer Marks Guidance") and page furniture (lines without a label or
 *   marks before the first question) are skipped.
 * Everything that does not fit is said: a sentence per question whose items disagree with the paper's
 * marks or the scheme's total, per label not on the paper, per part of the paper the scheme gives nothing.
 */

/** The most text read: a long mark scheme is 60,000 characters; more is refused with a sentence. */
export const MAX_SCHEME_CHARS = 200_000;
/** The most lines read (a pasted scheme of 60 pages is about 3,000). */
const MAX_SCHEME_LINES = 10_000;
/** Items a question may have (rubrics.ts allows 50). */
const MAX_ITEMS_PER_QUESTION = 50;
/** An item's text at most (the rubric item's limit is 500). */
const MAX_ITEM_TEXT = 500;

type ItemKind = "method" | "accuracy" | "independent" | "communication" | "mark";

interface ProposedItem {
  /** The text the rubric item gets: the code first when there is one ("M1 (method) 2x = 6"). */
  text: string;
  points: number;
  /** The scheme's code ("M1", "A1ft", "B2"), or null for "1 mark for …" and "(1)". */
  code: string | null;
  kind: ItemKind;
}

interface SchemeQuestion {
  /** The label as canonical ("3(b)(i)"). */
  label: string;
  items: ProposedItem[];
  /** The total the scheme states for this question ("Total for Question 3 is 5 marks"), or null. */
  stated_total: number | null;
}

export interface SchemeReading {
  questions: SchemeQuestion[];
  /** Sentences for the teacher about the scheme itself (matching to the paper adds its own). */
  warnings: string[];
}

/** A line of a scheme: its cells (one for a pasted line without separators). */
export type SchemeLine = string[];

/** A label's parts: the question number, a part letter, a sub-part numeral. */
interface Label {
  question: number;
  part: string | null;
  sub: string | null;
}

const canonicalLabel = ({ question, part, sub }: Label) => `${question}${part ? `(${part})` : ""}${sub ? `(${sub})` : ""}`;

const QUESTION = String.raw`(?:q(?:uestion)?\s*\.?\s*)?(\d{1,3})`;
const PART = String.raw`(?:\s*\.?\s*\(?([a-z])\)?(?=(?:x|ix|iv|v?i{1,3}|v)?(?:$|[\s.:|)(\]])))`;
const SUB = String.raw`(?:\s*\.?\s*\(?(x|ix|iv|v?i{1,3}|v)\)?)`;
const END = String.raw`(?=$|[\s.:|)\]])`;
/** Longest first: a question with its part and sub-part, with its part, alone. */
const LABEL_RES = [new RegExp(`^${QUESTION}${PART}?${SUB}?${END}`, "i"), new RegExp(`^${QUESTION}${PART}?${END}`, "i"), new RegExp(`^${QUESTION}${END}`, "i")];

/**
 * A label at the start of `text` ("3(a)(i)", "3 a", "3ai", "Q3a"), with what follows it, or null.
 * A part letter followed by more letters is a word, not a part ("3 apples"); a number followed by "=" or
 * "marks" is an answer or marks. "1 a control variable" reads as 1(a) unless `known` (the paper's
 * labels) has no 1(a) but has 1: the longest reading the paper has wins.
 */
export function parseLabel(text: string, known?: ReadonlySet<string>): { label: Label; rest: string } | null {
  const trimmed = text.trim();
  let first: { label: Label; rest: string } | null = null;
  for (const pattern of LABEL_RES) {
    const read = readLabel(trimmed, pattern);
    if (!read) continue;
    if (!known || known.has(canonicalLabel(read.label))) return read;
    first ??= read;
  }
  return first;
}

function readLabel(trimmed: string, pattern: RegExp): { label: Label; rest: string } | null {
  const match = pattern.exec(trimmed);
  if (!match) return null;
  const question = Number(match[1]);
  if (question < 1) return null;
  const after = trimmed.slice(match[0].length).trim();
  // "2 marks for …" is marks, not question 2; "2x = 6" an answer.
  if (/^(?:marks?\b|[=+*/×÷<>^])/i.test(after)) return null;
  let part = match[2]?.toLowerCase() ?? null;
  let sub = match[3]?.toLowerCase() ?? null;
  // "3i" is part (i), a letter. A numeral of more than one letter without a part is no label.
  if (!part && sub) {
    if (sub.length === 1) [part, sub] = [sub, null];
    else return null;
  }
  return { label: { question, part, sub }, rest: after.replace(/^[\s.:|)\]]+/, "") };
}

/** A template's label in canonical form, for matching ("3a", "3 (a)", "3(a)" alike); null when it is no label. */
export function labelKey(label: string): string | null {
  const parsed = parseLabel(label);
  if (!parsed || parsed.rest.length > 0) return null;
  return canonicalLabel(parsed.label);
}

const CODE_RE = /^(m|a|b|c|p|e|sc)(\d{1,2})(ft|dep|cao|oe)?$/i;
const KINDS: Record<string, ItemKind> = { m: "method", a: "accuracy", b: "independent", c: "communication", p: "method", e: "communication", sc: "mark" };
const KIND_WORDS: Partial<Record<ItemKind, string>> = { method: "method" };

interface Marks {
  points: number;
  code: string | null;
  kind: ItemKind;
  description: string;
}

const cleanDescription = (text: string) =>
  text
    // eslint-disable-next-line no-control-regex -- control characters are what is taken out
    .replace(/[\u0000-\u001f\u007f]/g, " ")
    .replace(/\s+/g, " ")
    .replace(/^[\s|:;,.–—-]+|[\s|:;,–—-]+$/g, "")
    .replace(/^for\s+/i, "")
    .trim();

/** The codes of a cell or a line's first or last words ("M1", "M1 A1", "B2"). */
function codesIn(words: string[]): { codes: RegExpExecArray[]; taken: number } {
  const codes: RegExpExecArray[] = [];
  for (const word of words) {
    // "M1A1" written together: two codes.
    const pieces = word.match(/(?:sc|[mabcpe])\d{1,2}(?:ft|dep|cao|oe)?/gi);
    if (!pieces || pieces.join("").length !== word.length) break;
    const matched = pieces.map((piece) => CODE_RE.exec(piece));
    if (matched.some((piece) => !piece)) break;
    codes.push(...(matched as RegExpExecArray[]));
  }
  return { codes, taken: codes.length === 0 ? 0 : countWords(words, codes.length) };
}

/** How many words hold `count` codes from the start. */
function countWords(words: string[], count: number): number {
  let seen = 0;
  for (let index = 0; index < words.length; index++) {
    seen += words[index]!.match(/(?:sc|[mabcpe])\d{1,2}(?:ft|dep|cao|oe)?/gi)?.length ?? 0;
    if (seen >= count) return index + 1;
  }
  return words.length;
}

const codeMarks = (code: RegExpExecArray, description: string): Marks => ({
  points: Number(code[2]),
  code: code[0].toUpperCase().replace(/(FT|DEP|CAO|OE)$/, (tail) => tail.toLowerCase()),
  kind: KINDS[code[1]!.toLowerCase()]!,
  description,
});

/** The marks a line (its text, cells joined) gives, as items; [] when it gives none. */
function marksOf(text: string): Marks[] {
  const line = text.trim();
  if (line.length === 0) return [];
  // "1 mark for …", "2 marks: …"
  const counted = /^(\d{1,2})\s*marks?\b\s*(.*)$/i.exec(line);
  if (counted) return [{ points: Number(counted[1]), code: null, kind: "mark", description: cleanDescription(counted[2]!) }];
  const words = line.split(/[\s|]+/).filter((word) => word.length > 0);
  const first = codesIn(words);
  if (first.codes.length > 0) {
    const description = cleanDescription(words.slice(first.taken).join(" "));
    return first.codes.map((code) => codeMarks(code, description));
  }
  const last = codesIn([...words].reverse());
  if (last.codes.length > 0) {
    const description = cleanDescription(words.slice(0, words.length - last.taken).join(" "));
    return last.codes.reverse().map((code) => codeMarks(code, description));
  }
  // "… (1)", "… [2]", "… 1 mark"
  const trailing = /^(.*?)[\s|]*(?:\((\d{1,2})\)|\[(\d{1,2})\]|\b(\d{1,2})\s*marks?)$/i.exec(line);
  if (trailing && trailing[1]!.trim().length > 0) {
    return [{ points: Number(trailing[2] ?? trailing[3] ?? trailing[4]), code: null, kind: "mark", description: cleanDescription(trailing[1]!) }];
  }
  return [];
}

const TOTAL_RE = /^total(?:\s+for\s+question\s+(\d{1,3})\S*?)?(?:\s+is|\s*[:=])?\s*\[?(\d{1,3})\]?\s*(?:marks?)?\.?$/i;
const HEADER_RE = /^(?:question|qu\.?|q)\s*[|\s]\s*(?:answer|response|mark scheme)/i;

function composeText(marks: Marks): string {
  const said = marks.code ? `${marks.code}${KIND_WORDS[marks.kind] ? ` (${KIND_WORDS[marks.kind]})` : ""}` : "";
  const text = [said, marks.description].filter((part) => part.length > 0).join(" ");
  return (text.length > 0 ? text : `${marks.points} mark${marks.points === 1 ? "" : "s"}`).slice(0, MAX_ITEM_TEXT);
}

/** Plain text (pasted) into lines of cells: "|" and tabs, or runs of two spaces or more, separate cells. */
function linesOfText(text: string): SchemeLine[] {
  return text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) =>
      line
        .split(/\s*\|\s*|\t+| {2,}/)
        .map((cell) => cell.trim())
        .filter((cell) => cell.length > 0),
    );
}

/** Reads a scheme's pasted text. Refuses (a sentence) text beyond MAX_SCHEME_CHARS. */
export function readSchemeText(text: string, known?: ReadonlySet<string>): SchemeReading {
  if (text.length > MAX_SCHEME_CHARS) {
    throw new RangeError(`This mark scheme is longer than ${MAX_SCHEME_CHARS.toLocaleString("en-GB")} characters: paste it a few questions at a time`);
  }
  return readSchemeLines(linesOfText(text), known);
}

/** Reads a scheme's lines (each its cells, in reading order); `known`, the paper's labels (canonical), settles "1 a …". */
export function readSchemeLines(lines: SchemeLine[], known?: ReadonlySet<string>): SchemeReading {
  const warnings: string[] = [];
  const byLabel = new Map<string, SchemeQuestion>();
  let current: SchemeQuestion | null = null;
  let currentLabel: Label | null = null;
  let lastItem: ProposedItem | null = null;
  /** Text lines before any item of the current question: the answer a code-only line gives marks to. */
  let pending: string[] = [];
  let ignoredBeforeLabel = 0;
  let overflowed = false;

  if (lines.length > MAX_SCHEME_LINES) {
    warnings.push(`The mark scheme has ${lines.length.toLocaleString("en-GB")} lines: only the first ${MAX_SCHEME_LINES.toLocaleString("en-GB")} were read`);
  }
  for (const cells of lines.slice(0, MAX_SCHEME_LINES)) {
    if (cells.length === 0) continue;
    const joined = cells.join(" | ");
    if (HEADER_RE.test(joined.replace(/\s*\|\s*/g, " | "))) continue;
    let rest = cells;
    const labelled = parseLabel(cells[0]!, known);
    if (labelled && plausibleNext(currentLabel, labelled.label, cells.length > 1 || labelled.rest.length === 0)) {
      // The label's own cell may hold text after it ("3(a) M1 for …" pasted without separators).
      rest = [labelled.rest, ...cells.slice(1)].filter((cell) => cell.length > 0);
      const key = canonicalLabel(labelled.label);
      currentLabel = labelled.label;
      current = byLabel.get(key) ?? null;
      if (!current) {
        current = { label: key, items: [], stated_total: null };
        byLabel.set(key, current);
      }
      lastItem = null;
      pending = [];
    }
    if (rest.length === 0) continue;
    const restText = rest.join(" | ");
    const total = TOTAL_RE.exec(restText.replace(/\s*\|\s*/g, " ").trim());
    if (total) {
      // "Total for Question 3 …" is question 3's, whichever part came last; "Total: 5" the current question's.
      const named = total[1] ? String(Number(total[1])) : null;
      const owner = named ? (byLabel.get(named) ?? { label: named, items: [], stated_total: null }) : current;
      if (named && !byLabel.has(named)) byLabel.set(named, owner!);
      if (owner) owner.stated_total = Number(total[2]);
      lastItem = null;
      pending = [];
      continue;
    }
    if (!current) {
      if (marksOf(restText).length > 0) ignoredBeforeLabel++;
      continue;
    }
    // A row's cells: the marks may be a cell of their own ("2x = 6 | M1 | guidance"), or in the line.
    const marks = marksInCells(rest);
    if (marks.length === 0) {
      const text = cleanDescription(rest.join(" "));
      if (text.length === 0) continue;
      if (lastItem) lastItem.text = `${lastItem.text} ${text}`.slice(0, MAX_ITEM_TEXT);
      else pending.push(text);
      continue;
    }
    for (const mark of marks) {
      if (mark.description.length === 0 && pending.length > 0) mark.description = cleanDescription(pending.join(" "));
      if (current.items.length >= MAX_ITEMS_PER_QUESTION) {
        if (!overflowed) warnings.push(`${current.label}: more than ${MAX_ITEMS_PER_QUESTION} items, the most a question can have: the rest were left out`);
        overflowed = true;
        continue;
      }
      lastItem = { text: composeText(mark), points: mark.points, code: mark.code, kind: mark.kind };
      current.items.push(lastItem);
    }
    pending = [];
  }
  if (ignoredBeforeLabel > 0) {
    warnings.push(
      `${ignoredBeforeLabel} line${ignoredBeforeLabel === 1 ? "" : "s"} with marks came before any question label and ${ignoredBeforeLabel === 1 ? "was" : "were"} left out`,
    );
  }
  const questions = [...byLabel.values()];
  for (const question of questions) {
    const sum = sumOf(question.items);
    if (question.items.length === 0 && !hasParts(question, questions)) warnings.push(`${question.label}: no marks found in the mark scheme`);
    else if (question.stated_total !== null && !hasParts(question, questions) && sum !== question.stated_total) {
      warnings.push(`${question.label}: the items add up to ${sum}, the mark scheme's total says ${question.stated_total}`);
    }
  }
  // A question's stated total against its parts' items ("Total for Question 3 is 5 marks" under 3(a), 3(b)).
  for (const question of questions) {
    if (question.stated_total === null || !hasParts(question, questions)) continue;
    const sum = questions.filter((other) => other.label.startsWith(`${question.label}(`)).reduce((total, other) => total + sumOf(other.items), sumOf(question.items));
    if (sum !== question.stated_total) warnings.push(`${question.label}: the items add up to ${sum}, the mark scheme's total says ${question.stated_total}`);
  }
  return { questions: questions.filter((question) => question.items.length > 0 || !hasParts(question, questions)), warnings };
}

/** Marks of a row's cells: a cell that is only codes or a number gives marks to the cells before it (the answer) and after (guidance). */
function marksInCells(cells: string[]): Marks[] {
  if (cells.length > 1) {
    for (let index = 0; index < cells.length; index++) {
      const cell = cells[index]!;
      const words = cell.split(/\s+/);
      const { codes, taken } = codesIn(words);
      const number = /^\d{1,2}$/.test(cell) && index > 0 ? Number(cell) : null;
      if ((codes.length > 0 && taken === words.length) || number !== null) {
        const answer = cleanDescription(cells.slice(0, index).join(" "));
        const guidance = cleanDescription(cells.slice(index + 1).join(" "));
        const description = guidance.length > 0 ? (answer.length > 0 ? `${answer} (${guidance})` : guidance) : answer;
        if (number !== null) return [{ points: number, code: null, kind: "mark", description }];
        return codes.map((code) => codeMarks(code, description));
      }
    }
  }
  return marksOf(cells.join(" "));
}

const sumOf = (items: ProposedItem[]) => Math.round(items.reduce((total, item) => total + item.points, 0) * 100) / 100;
const hasParts = (question: SchemeQuestion, questions: SchemeQuestion[]) => questions.some((other) => other.label.startsWith(`${question.label}(`));

/**
 * Whether a label read at a line's start is one (question numbers go up, by a few at most; a part comes
 * under its question): "24" in an answer column under question 3 is an answer, not question 24. A label
 * alone in its cell (a table row) is trusted a little further.
 */
function plausibleNext(current: Label | null, next: Label, ownCell: boolean): boolean {
  if (!current) return next.question <= 5 || ownCell;
  if (next.question === current.question) return next.part !== null && (next.part !== current.part || next.sub !== current.sub);
  return next.question > current.question && next.question <= current.question + (ownCell ? 10 : 3);
}
