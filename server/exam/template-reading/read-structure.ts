import { MAX_TICK_BOXES, TICK_BOX_LABELS, type TickBox } from "../../../lib/rules/tick-boxes";
import type { Box, HLine, PageContent, TextItem } from "./page-content";
import type { Confidence, ProposedQuestion, ProposedRect, TemplateProposal } from "./proposal";

/**
 * The template reader's reading of a paper's text and drawings (issue 37, item 1), pure: from each
 * page's content (page-content.ts) to the proposal (proposal.ts). The layouts it understands are listed
 * in docs/decisions/exam-marking.md ("the template reader"); in short:
 * - questions numbered in the margin ("1", "1.", "Q1"), parts "(a)" and sub-parts "(i)" at the start of
 *   a line, each in sequence (a number is a question only when it is the next one);
 * - marks at the right of the part's lines: "[3 marks]", "[3]", "(3)", "3 marks"; "Total for Question
 *   3 is 5 marks" under a question; the paper's total on its cover ("Total: 40 marks");
 * - the answer area of a part: the box printed under it, else its ruled lines, else its tick boxes (a
 *   row of small squares or circles), else the open space from under its text to the next text;
 * - one or two columns a page (two: a gutter no line of text crosses, with labels at its right);
 * - the name box: the box beside or under "Name" / "Candidate name".
 */

const MM = 72 / 25.4;
const ROMANS = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x"];
const QUESTION_NUMBER = /^(?:Q(?:uestion)?\s*)?(\d{1,2})[.)]?$/i;
const PART = /^\(([a-z])\)$/;
const SUB_PART = /^\(([ivx]{1,4})\)$/;
const MARKS: RegExp[] = [/^\[(\d{1,3})\s*marks?\]$/i, /^\[(\d{1,3})\]$/, /^\((\d{1,3})\)$/, /^\(?(\d{1,3})\s*marks?\)?$/i];
const QUESTION_TOTAL = /^\(?\s*total\s+for\s+question\s+(\d{1,2})\s*(?:is|=|:)?\s*(\d{1,3})\s*marks?\s*\)?\.?$/i;
const STATED_TOTAL = /\btotal(?:\s+marks?)?(?:\s+for\s+this\s+paper)?\s*(?:is|:|=)\s*(\d{1,3})\b|\btotal\s*:?\s*(\d{1,3})\s*marks\b/i;
const NAME_LABEL = /^(?:candidate(?:'s)?\s+name|student(?:'s)?\s+name|name(?:\s+of\s+candidate)?|full\s+name|surname)\s*:?$/i;

/** Tick boxes: 3–12 mm across and about square (as server/exam/ticks/find-boxes.ts). */
const isTickBox = (box: Box) => {
  const w = box.right - box.left;
  const h = box.bottom - box.top;
  return w >= 3 * MM && h >= 3 * MM && w <= 12 * MM && h <= 12 * MM && Math.max(w, h) / Math.min(w, h) <= 1.45;
};
/** An answer box: at least 20 mm wide and 6 mm tall. */
const isAnswerBox = (box: Box) => box.right - box.left >= 20 * MM && box.bottom - box.top >= 6 * MM;
/** A ruled line: at least 20 mm long. */
const isRule = (line: HLine) => line.right - line.left >= 20 * MM;

interface Line {
  page: number;
  column: number;
  baseline: number;
  items: TextItem[];
  /** The line's first item's size. */
  size: number;
}

interface Column {
  left: number;
  right: number;
}

interface Node {
  label: string;
  parent: Node | null;
  children: Node[];
  kind: "question" | "part" | "sub";
  /** Its letter or numeral (as "a" or "ii"), or the question's number. */
  key: string;
  page: number;
  column: number;
  baseline: number;
  /** Where the text after its label starts. */
  textLeft: number;
  lines: Line[];
  marks: number | null;
  marksFromTotal: boolean;
  /** "Total for Question N is M marks" (on a question). */
  statedTotal: number | null;
}

/** The reading of the paper's pages with text; `scanned` areas (read from images) are added by the caller. */
export function readStructure(pages: PageContent[], pageCount: number): TemplateProposal {
  const warnings: string[] = [];
  const layout = new Map<number, { columns: Column[]; lines: Line[]; content: PageContent }>();
  const found = pages.map((content) => ({ content, columns: columnsOf(content) }));
  // A page of a two-column paper whose text all lies in the left column (its last page) keeps the paper's columns.
  const split = found.find((page) => page.columns.length === 2)?.columns;
  for (const page of found) {
    if (split && page.columns.length === 1 && page.columns[0]!.right <= split[0]!.right + 2 * MM) page.columns = [{ left: page.columns[0]!.left, right: split[0]!.right }, split[1]!];
    layout.set(page.content.page, linesOf(page.content, page.columns));
  }

  // Walk the lines in reading order: pages, columns, top to bottom.
  const questions: Node[] = [];
  const all: Node[] = [];
  let question: Node | null = null;
  let part: Node | null = null;
  let current: Node | null = null;
  let statedTotal: number | null = null;
  let lastNumber = 0;
  const totals = new Map<number, number>();
  for (const { lines, columns } of [...layout.values()].sort((a, b) => a.content.page - b.content.page)) {
    for (const line of lines) {
      const items = line.items;
      let at = 0;
      const make = (kind: Node["kind"], key: string, label: string, parent: Node | null, item: TextItem): Node => {
        const node: Node = { label, parent, children: [], kind, key, page: line.page, column: line.column, baseline: line.baseline, textLeft: item.x + item.width, lines: [], marks: null, marksFromTotal: false, statedTotal: null };
        parent?.children.push(node);
        all.push(node);
        return node;
      };
      const first = items[0]!;
      const number = QUESTION_NUMBER.exec(first.str.trim());
      const column = columns[line.column]!;
      // The next number, or one further (a question missed, said below), at the left of its column, with text after it.
      const value = number ? Number(number[1]) : 0;
      if (number && value > lastNumber && value <= lastNumber + 2 && first.x <= column.left + 0.25 * (column.right - column.left) && items.length > 1) {
        if (value === lastNumber + 2) warnings.push(`Question ${value - 1}: not found between ${value - 2} and ${value}; draw it if the paper has it`);
        question = make("question", `${value}`, `${value}`, null, first);
        questions.push(question);
        lastNumber = value;
        part = null;
        current = question;
        at = 1;
      }
      if (question && at < items.length && at <= 1) {
        const text = items[at]!.str.trim();
        const letter = PART.exec(text)?.[1];
        const numeral = SUB_PART.exec(text)?.[1];
        const nextLetter = String.fromCharCode(97 + question.children.length);
        const nextNumeral = part ? ROMANS[part.children.length] : undefined;
        // "(i)" is a sub-part when a part is open and i is its next numeral; otherwise a part's letter.
        if (numeral && part && numeral === nextNumeral && !(letter === nextLetter && part.children.length === 0 && nextLetter === "i")) {
          current = make("sub", numeral, `${part.label}(${numeral})`, part, items[at]!);
          at++;
        } else if (letter && letter === nextLetter) {
          part = make("part", letter, `${question.label}(${letter})`, question, items[at]!);
          current = part;
          at++;
          const after = items[at] ? SUB_PART.exec(items[at]!.str.trim())?.[1] : undefined;
          if (after === "i") {
            current = make("sub", after, `${part.label}(i)`, part, items[at]!);
            at++;
          }
        }
      }
      if (current && at > 0) current.textLeft = items[at]?.x ?? current.textLeft;
      // Marks and totals anywhere on the line.
      const joined = items.map((item) => item.str).join(" ").trim();
      const total = QUESTION_TOTAL.exec(joined) ?? items.map((item) => QUESTION_TOTAL.exec(item.str.trim())).find(Boolean);
      if (total) {
        totals.set(Number(total[1]), Number(total[2]));
        continue;
      }
      if (statedTotal === null && !current) {
        const stated = STATED_TOTAL.exec(joined);
        if (stated) statedTotal = Number(stated[1] ?? stated[2]);
      }
      if (!current) continue;
      current.lines.push(line);
      for (const item of items.slice(at)) {
        const marks = MARKS.map((pattern) => pattern.exec(item.str.trim())).find(Boolean);
        // Marks stand at the right of the column's text, not inside a sentence.
        if (marks && item.x >= column.left + 0.5 * (column.right - column.left) && current.marks === null) current.marks = Number(marks[1]);
      }
    }
  }
  for (const node of questions) node.statedTotal = totals.get(Number(node.key)) ?? null;
  if (questions.length === 0 && pages.some((page) => page.texts.length > 0)) warnings.push("No numbered questions were found on the paper: draw its answer areas on the paper");

  // Marks: inferred from a question's total where one part lacks them, checked against it otherwise.
  const leaves = all.filter((node) => node.children.length === 0);
  const unsure = new Set<Node>();
  for (const q of questions) {
    const qLeaves = leavesOf(q);
    const missing = qLeaves.filter((leaf) => leaf.marks === null);
    const known = qLeaves.reduce((sum, leaf) => sum + (leaf.marks ?? 0), 0);
    if (q.statedTotal !== null && missing.length === 1 && q.statedTotal - known > 0) {
      missing[0]!.marks = q.statedTotal - known;
      missing[0]!.marksFromTotal = true;
      unsure.add(missing[0]!);
    }
    for (const leaf of qLeaves) {
      if (leaf.marks === null) warnings.push(`Question ${leaf.label}: no marks found`);
      else if (leaf.marksFromTotal) warnings.push(`Question ${leaf.label}: no marks found; ${leaf.marks} proposed, what Question ${q.label}'s total leaves`);
    }
    const sum = qLeaves.reduce((s, leaf) => s + (leaf.marks ?? 0), 0);
    if (q.statedTotal !== null && qLeaves.every((leaf) => leaf.marks !== null) && sum !== q.statedTotal) {
      warnings.push(`Question ${q.label}: the parts add up to ${sum}, the paper says ${q.statedTotal}`);
      qLeaves.forEach((leaf) => unsure.add(leaf));
    }
  }
  const marksTotal = leaves.reduce((sum, leaf) => sum + (leaf.marks ?? 0), 0);
  const unread = leaves.filter((leaf) => leaf.marks === null).length;
  if (statedTotal !== null && marksTotal !== statedTotal) {
    warnings.push(
      unread > 0
        ? `the marks found add up to ${marksTotal} (${unread === 1 ? "one part" : `${unread} parts`} without marks), the cover says ${statedTotal}`
        : `the marks add up to ${marksTotal}, the cover says ${statedTotal}`,
    );
    leaves.forEach((leaf) => unsure.add(leaf));
  }

  // Answer areas.
  const proposed: ProposedQuestion[] = [];
  const order = [...all];
  for (const node of order) {
    const parent_label = node.parent?.label ?? null;
    if (node.children.length > 0) {
      const nodeLeaves = leavesOf(node);
      const known = nodeLeaves.every((leaf) => leaf.marks !== null);
      proposed.push({
        label: node.label,
        parent_label,
        max_marks: known ? nodeLeaves.reduce((s, leaf) => s + leaf.marks!, 0) : null,
        page: null,
        area: null,
        kind: "written",
        area_from: null,
        confidence: known && nodeLeaves.every((leaf) => !unsure.has(leaf)) ? "sure" : "check",
      });
      continue;
    }
    const next = order[order.indexOf(node) + 1];
    const { columns, content, lines } = layout.get(node.page)!;
    const area = areaOf(node, next && next.page === node.page && next.column === node.column ? next.baseline : null, columns[node.column]!, content, lines);
    const sure = node.marks !== null && !unsure.has(node) && area.from !== "space" && area.rect !== null;
    proposed.push({
      label: node.label,
      parent_label,
      max_marks: node.marks,
      page: node.page,
      area: area.rect ? toFractions(area.rect, content) : null,
      kind: area.from === "ticks" ? "ticks" : "written",
      ...(area.from === "ticks" ? { tick_boxes: area.ticks.map((box, index) => tickBoxOf(box, index, content)) } : {}),
      area_from: area.from,
      confidence: sure ? "sure" : "check",
    });
    if (!area.rect) warnings.push(`Question ${node.label}: no answer space found`);
  }

  return {
    page_count: pageCount,
    questions: proposed,
    name_box: nameBoxOf(pages),
    stated_total: statedTotal,
    marks_total: marksTotal,
    warnings,
    scanned_pages: [],
  };
}

function leavesOf(node: Node): Node[] {
  return node.children.length === 0 ? [node] : node.children.flatMap(leavesOf);
}

/** A page's columns (one, or two split at a gutter), and its lines of text in reading order. */
function linesOf(content: PageContent, columns: Column[]): { columns: Column[]; lines: Line[]; content: PageContent } {
  const texts = content.texts.filter((item) => item.str.trim().length > 0);
  const columnOf = (item: TextItem) => (columns.length === 1 ? 0 : item.x >= columns[1]!.left ? 1 : 0);
  const lines: Line[] = [];
  for (let column = 0; column < columns.length; column++) {
    const mine = texts.filter((item) => columnOf(item) === column).sort((a, b) => a.baseline - b.baseline || a.x - b.x);
    for (const item of mine) {
      const line = lines.findLast((l) => l.column === column && Math.abs(l.baseline - item.baseline) <= Math.max(2, item.size * 0.25));
      if (line) line.items.push(item);
      else lines.push({ page: content.page, column, baseline: item.baseline, items: [item], size: item.size });
    }
  }
  for (const line of lines) line.items = line.items.flatMap(splitLabel).sort((a, b) => a.x - b.x);
  return { columns, lines, content };
}

/**
 * Two columns when a vertical gutter in the page's middle third is crossed by no text (but a header's or
 * footer's) and a label (a question number or a part) starts just right of it; otherwise one.
 */
function columnsOf(content: PageContent): Column[] {
  const { width, height } = content;
  const texts = content.texts.filter((item) => item.str.trim().length > 0);
  // The body: not the running header or footer.
  const body = texts.filter((item) => item.baseline > height * 0.06 && item.baseline < height * 0.94);
  const measured = body.length > 0 ? body : texts;
  const left = Math.min(...measured.map((item) => item.x), width);
  const right = Math.max(...measured.map((item) => item.x + item.width), 0);
  // The widest band of the middle third that no line of the body crosses.
  let best: { x: number; width: number } | null = null;
  let bandStart: number | null = null;
  for (let x = width * 0.35; x <= width * 0.65 + 1; x += 1) {
    const free = x <= width * 0.65 && !body.some((item) => item.x < x && item.x + item.width > x);
    if (free && bandStart === null) bandStart = x;
    if (!free && bandStart !== null) {
      if (!best || x - bandStart > best.width) best = { x: (bandStart + x) / 2, width: x - bandStart };
      bandStart = null;
    }
  }
  if (best && best.width >= 3 * MM) {
    // The gutter's right edge: the leftmost text right of it.
    const rightOf = body.filter((item) => item.x >= best.x);
    const start = Math.min(...rightOf.map((item) => item.x));
    const labelled = rightOf.some((item) => item.x <= start + 3 && (QUESTION_NUMBER.test(item.str.trim()) || PART.test(item.str.trim()) || SUB_PART.test(item.str.trim())));
    const leftOf = body.filter((item) => item.x + item.width <= best.x);
    if (labelled && leftOf.length >= 3 && rightOf.length >= 3) {
      const leftEnd = Math.max(...leftOf.map((item) => item.x + item.width));
      return [
        { left, right: leftEnd },
        { left: start, right },
      ];
    }
  }
  return [{ left, right }];
}

interface FoundArea {
  rect: Box | null;
  from: ProposedQuestion["area_from"];
  ticks: Box[];
}

/**
 * A leaf's answer area: in its slot (from its label's line down to the next label in the same column, or
 * the column's foot), the first answer box; else its ruled lines (from one line's spacing above the
 * first to the last); else its tick boxes (their union, 2 mm round); else the open space from 3 mm
 * under its last line of text to 6 mm above the next text's baseline.
 */
function areaOf(node: Node, nextBaseline: number | null, column: Column, content: PageContent, lines: Line[]): FoundArea {
  const top = node.baseline - 2;
  const slotEnd = nextBaseline ?? content.height;
  // A shape belongs to the slot when it starts inside it, and to the node's column.
  const inColumn = (left: number, right: number) => (left + right) / 2 >= column.left - 4 * MM && (left + right) / 2 <= column.right + 4 * MM;
  const inSlot = (shapeTop: number, left: number, right: number) => shapeTop >= top && shapeTop < slotEnd - 6 && inColumn(left, right);
  const ticks = content.boxes.filter((box) => isTickBox(box) && inSlot(box.top, box.left, box.right));
  // The first box under the label; of boxes side by side, the leftmost (the one under the label's text).
  const boxes = content.boxes.filter((box) => !isTickBox(box) && isAnswerBox(box) && inSlot(box.top, box.left, box.right)).sort((a, b) => (Math.abs(a.top - b.top) > 2 * MM ? a.top - b.top : a.left - b.left));
  if (boxes.length > 0) return { rect: boxes[0]!, from: "box", ticks: [] };
  const rules = content.hLines.filter((line) => isRule(line) && inSlot(line.y, line.left, line.right)).sort((a, b) => a.y - b.y);
  if (rules.length > 0) {
    // One run of lines of about the same length and spacing.
    const run = [rules[0]!];
    for (const line of rules.slice(1)) {
      const previous = run.at(-1)!;
      if (line.y - previous.y > 16 * MM || Math.abs(line.left - run[0]!.left) > 3 * MM || Math.abs(line.right - run[0]!.right) > 3 * MM) break;
      run.push(line);
    }
    const spacing = run.length > 1 ? (run.at(-1)!.y - run[0]!.y) / (run.length - 1) : 8 * MM;
    return { rect: { left: Math.min(...run.map((l) => l.left)), right: Math.max(...run.map((l) => l.right)), top: run[0]!.y - spacing, bottom: run.at(-1)!.y }, from: "lines", ticks: [] };
  }
  if (ticks.length >= 2) {
    const row = ticks.sort((a, b) => a.top - b.top || a.left - b.left).slice(0, MAX_TICK_BOXES);
    const inOrder = readingOrder(row);
    const pad = 2 * MM;
    return {
      rect: { left: Math.min(...row.map((b) => b.left)) - pad, top: Math.min(...row.map((b) => b.top)) - pad, right: Math.max(...row.map((b) => b.right)) + pad, bottom: Math.max(...row.map((b) => b.bottom)) + pad },
      from: "ticks",
      ticks: inOrder,
    };
  }
  // Open space: under the node's own lines (its label's line and those that follow it closely).
  const own = node.lines.filter((line) => line.page === node.page && line.column === node.column).sort((a, b) => a.baseline - b.baseline);
  let last = node.baseline;
  for (const line of own) {
    if (line.baseline - last > 8 * MM) break;
    last = Math.max(last, line.baseline);
  }
  const below = lines.filter((line) => line.baseline > last + 1 && (line.column === node.column || spansColumns(line, content))).map((line) => line.baseline);
  const nextText = Math.min(...below, nextBaseline ?? Infinity, content.height);
  const areaTop = last + 3 * MM;
  const areaBottom = nextText - 6 * MM;
  if (areaBottom - areaTop < 4 * MM) return { rect: null, from: null, ticks: [] };
  return { rect: { left: node.textLeft, right: column.right, top: areaTop, bottom: areaBottom }, from: "space", ticks: [] };
}

/** A label and its text in one piece ("1. Which of these…", "(a) State…"): the label apart, the text after it at about where it is printed. */
const LABEL_AND_TEXT = /^(\s*(?:(?:Q(?:uestion)?\s*)?\d{1,2}[.)]?|\([a-z]\)|\([ivx]{1,4}\))\s+)(\S.*)$/i;
function splitLabel(item: TextItem): TextItem[] {
  const parts = LABEL_AND_TEXT.exec(item.str);
  if (!parts || MARKS.some((pattern) => pattern.test(item.str.trim()))) return [item];
  const [, label, rest] = parts as unknown as [string, string, string];
  const share = item.width / Math.max(1, item.str.length);
  const labelWidth = label.trimEnd().length * share;
  return [
    { ...item, str: label.trim(), width: labelWidth },
    { ...item, str: rest, x: item.x + label.length * share, width: rest.length * share },
  ];
}

const spansColumns = (line: Line, content: PageContent) => line.items.some((item) => item.x < content.width / 2 && item.x + item.width > content.width / 2);

function readingOrder(boxes: Box[]): Box[] {
  const rows: Box[][] = [];
  for (const box of [...boxes].sort((a, b) => a.top + a.bottom - (b.top + b.bottom))) {
    const row = rows.at(-1);
    const middle = (box.top + box.bottom) / 2;
    if (row && Math.abs(middle - (row[0]!.top + row[0]!.bottom) / 2) <= (box.bottom - box.top) / 2) row.push(box);
    else rows.push([box]);
  }
  return rows.flatMap((row) => row.sort((a, b) => a.left - b.left));
}

const round4 = (value: number) => Math.round(value * 10000) / 10000;

function toFractions(rect: Box, content: PageContent): ProposedRect {
  const clamp = (value: number) => Math.min(1, Math.max(0, value));
  const x = clamp(rect.left / content.width);
  const y = clamp(rect.top / content.height);
  return { x: round4(x), y: round4(y), width: round4(clamp(rect.right / content.width) - x), height: round4(clamp(rect.bottom / content.height) - y) };
}

function tickBoxOf(box: Box & { round?: boolean }, index: number, content: PageContent): TickBox {
  return { label: TICK_BOX_LABELS[index]!, ...toFractions(box, content), shape: box.round ? "round" : "square" };
}

/** The box beside (to the right on its line) or under a "Name" / "Candidate name" label, on the first page that has one. */
function nameBoxOf(pages: PageContent[]): TemplateProposal["name_box"] {
  for (const content of pages) {
    for (const item of content.texts) {
      if (!NAME_LABEL.test(item.str.trim())) continue;
      const end = item.x + item.width;
      const candidates = content.boxes.filter((box) => !isTickBox(box) && box.right - box.left >= 20 * MM);
      const beside = candidates
        .filter((box) => box.top <= item.baseline + 2 && box.bottom >= item.baseline - item.size * 0.7 && box.left >= end - 2 && box.left - end <= 30 * MM)
        .sort((a, b) => a.left - b.left)[0];
      const under = candidates
        .filter((box) => box.top >= item.baseline - 2 && box.top - item.baseline <= 15 * MM && box.left <= end && box.right >= item.x)
        .sort((a, b) => a.top - b.top)[0];
      const box = beside ?? under;
      if (box) return { page: content.page, ...toFractions(box, content), confidence: "sure" as Confidence };
    }
  }
  return null;
}
