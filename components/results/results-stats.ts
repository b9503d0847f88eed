/**
 * The arithmetic of the Results page, kept pure (no React, no fetching) so it is tested on its own in
 * tests/results-stats.test.ts. Inputs are the shapes of `exam.batches.results` and of the questions of
 * `exam.templates.get`.
 */

import type { BatchResults } from "@/server/exam/batches";
import { type SubmissionStateCounts, countSubmissionStates, submissionState } from "@/lib/rules/submission-state";

export type ResultsQuestion = BatchResults["questions"][number];
export type ResultRow = BatchResults["results"][number];

/** What the template editor knows about a question (containers included), for spec points. */
export interface TemplateQuestion {
  id: string;
  parent_id: string | null;
  label: string;
  spec_ref: string | null;
  is_container: boolean;
}

/** A row with what its state needs (lib/rules/submission-state.ts): how many questions have a mark. */
export function withMarksEntered(row: ResultRow, questions: readonly ResultsQuestion[]): ResultRow & { marks_entered: number } {
  return { ...row, marks_entered: markedCount(row, questions) };
}

/** How many questions of a row have a mark value. */
export function markedCount(row: ResultRow, questions: readonly ResultsQuestion[]): number {
  return questions.reduce((count, q) => (row.marks[q.id] === null || row.marks[q.id] === undefined ? count : count + 1), 0);
}

/**
 * The total to show: null when no mark has a value yet (absent, or scanned and not started), so the
 * table never shows a 0 that nobody gave. The server's total (numeric sum) otherwise.
 */
export function shownTotal(row: ResultRow, questions: readonly ResultsQuestion[]): number | null {
  if (row.status === "absent" || markedCount(row, questions) === 0) return null; // no scan yet, or absent
  return row.total;
}

/** The most a script can score: the sum of the questions' maximums (questions without one add nothing). */
export function maxTotal(questions: readonly ResultsQuestion[]): number {
  return roundMarks(questions.reduce((sum, q) => sum + (q.max_marks ?? 0), 0));
}

export function percentOf(value: number | null, max: number): number | null {
  if (value === null || !(max > 0)) return null;
  return (value / max) * 100;
}

export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export interface ResultsSummary {
  /** Submissions in each state (lib/rules/submission-state.ts), and in all. */
  counts: SubmissionStateCounts & { submissions: number };
  maxTotal: number;
  /** Percentages of the fully marked scripts: the basis of the mean, the median and the distribution. */
  markedPercentages: number[];
  meanPercent: number | null;
  medianPercent: number | null;
}

/**
 * Counts by state, and the mean and median percentage of the fully marked scripts only: a script
 * still being marked would pull the figures down with marks nobody has given yet, and an absent
 * student has no score at all.
 */
export function summarize(rows: readonly ResultRow[], questions: readonly ResultsQuestion[]): ResultsSummary {
  const counts = { ...countSubmissionStates(rows.map((row) => withMarksEntered(row, questions))), submissions: rows.length };
  const max = maxTotal(questions);
  const markedPercentages: number[] = [];
  for (const row of rows) {
    if (submissionState(withMarksEntered(row, questions)) !== "marked") continue;
    const percent = percentOf(shownTotal(row, questions), max);
    if (percent !== null) markedPercentages.push(percent);
  }
  return { counts, maxTotal: max, markedPercentages, meanPercent: mean(markedPercentages), medianPercent: median(markedPercentages) };
}

export interface Band {
  /** Lower bound, included. */
  from: number;
  /** Upper bound, excluded, except 100 which belongs to the last band. */
  to: number;
  count: number;
}

/** Percentages counted into bands of `width` points from 0 to 100 (100 % falls in the top band). */
export function histogramBands(percentages: readonly number[], width = 10): Band[] {
  const bandCount = Math.ceil(100 / width);
  const bands: Band[] = Array.from({ length: bandCount }, (_, index) => ({ from: index * width, to: Math.min(100, (index + 1) * width), count: 0 }));
  for (const percent of percentages) {
    const clamped = Math.min(100, Math.max(0, percent));
    const index = Math.min(bandCount - 1, Math.floor(clamped / width));
    bands[index]!.count += 1;
  }
  return bands;
}

export interface QuestionMean {
  id: string;
  label: string;
  maxMarks: number | null;
  /** Marks recorded for this question (each script with a value). */
  count: number;
  meanMarks: number | null;
  /** null when nobody has a mark yet or the question has no maximum. */
  meanPercent: number | null;
}

/** Mean mark of each question over every recorded value (scripts still in progress included; absent ones have none). */
export function questionMeans(questions: readonly ResultsQuestion[], rows: readonly ResultRow[]): QuestionMean[] {
  return questions.map((question) => {
    const values = rows.flatMap((row) => {
      const value = row.marks[question.id];
      return value === null || value === undefined ? [] : [value];
    });
    const meanMarks = mean(values);
    return {
      id: question.id,
      label: question.label,
      maxMarks: question.max_marks,
      count: values.length,
      meanMarks,
      meanPercent: question.max_marks ? percentOf(meanMarks, question.max_marks) : null,
    };
  });
}

/** Index of the smallest non-null value (the first of equals), or -1 when there is none. */
export function lowestIndex(values: readonly (number | null)[]): number {
  let lowest = -1;
  values.forEach((value, index) => {
    if (value === null) return;
    if (lowest === -1 || value < values[lowest]!) lowest = index;
  });
  return lowest;
}

/**
 * The specification point of each question: its own spec_ref, else the nearest container's (a paper
 * often tags question 3 as a whole and leaves its parts untagged). Blank refs count as none.
 */
export function effectiveSpecRefs(templateQuestions: readonly TemplateQuestion[]): Map<string, string | null> {
  const byId = new Map(templateQuestions.map((q) => [q.id, q]));
  const resolved = new Map<string, string | null>();
  for (const question of templateQuestions) {
    let current: TemplateQuestion | undefined = question;
    let ref: string | null = null;
    const seen = new Set<string>(); // a malformed tree must not loop forever
    while (current && !seen.has(current.id)) {
      seen.add(current.id);
      const own = current.spec_ref?.trim();
      if (own) {
        ref = own;
        break;
      }
      current = current.parent_id ? byId.get(current.parent_id) : undefined;
    }
    resolved.set(question.id, ref);
  }
  return resolved;
}

export interface SpecPointMean {
  /** null: the questions without a specification point. */
  specRef: string | null;
  questionLabels: string[];
  /** Mark values recorded over the group's questions. */
  count: number;
  awarded: number;
  possible: number;
  /** Awarded over possible marks of the recorded values, so a 6-mark question weighs more than a 1-mark one. */
  meanPercent: number | null;
}

/**
 * Mean percentage per specification point over the leaf questions, each recorded mark weighted by its
 * question's maximum (questions without a maximum are left out: they have no percentage). Points are
 * in natural order (A4 before A17); the questions without a point come last as one group.
 */
export function specPointMeans(
  questions: readonly ResultsQuestion[],
  templateQuestions: readonly TemplateQuestion[],
  rows: readonly ResultRow[],
): SpecPointMean[] {
  const refs = effectiveSpecRefs(templateQuestions);
  const groups = new Map<string | null, SpecPointMean>();
  for (const question of questions) {
    if (!question.max_marks) continue;
    const specRef = refs.get(question.id) ?? null;
    let group = groups.get(specRef);
    if (!group) {
      group = { specRef, questionLabels: [], count: 0, awarded: 0, possible: 0, meanPercent: null };
      groups.set(specRef, group);
    }
    group.questionLabels.push(question.label);
    for (const row of rows) {
      const value = row.marks[question.id];
      if (value === null || value === undefined) continue;
      group.count += 1;
      group.awarded += value;
      group.possible += question.max_marks;
    }
  }
  const collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });
  return [...groups.values()]
    .map((group) => ({ ...group, awarded: roundMarks(group.awarded), possible: roundMarks(group.possible), meanPercent: percentOf(group.awarded, group.possible) }))
    .sort((a, b) => (a.specRef === null ? 1 : b.specRef === null ? -1 : collator.compare(a.specRef, b.specRef)));
}

/**
 * The part every spec ref shares up to its last "/" ("NAB-GCSE-MATH-2025/"), so the chart can label
 * points "A17" and name the specification once. "" when there is no such shared part.
 */
export function commonSpecPrefix(refs: readonly string[]): string {
  if (refs.length === 0) return "";
  let prefix = refs[0]!;
  for (const ref of refs.slice(1)) {
    while (!ref.startsWith(prefix)) prefix = prefix.slice(0, -1);
  }
  const cut = prefix.lastIndexOf("/");
  const shared = cut === -1 ? "" : prefix.slice(0, cut + 1);
  // Never strip a whole ref down to nothing.
  return refs.some((ref) => ref.length <= shared.length) ? "" : shared;
}

export type SortKey = { by: "name" } | { by: "total" } | { by: "question"; questionId: string };
export type SortDirection = "ascending" | "descending";

/**
 * Rows sorted by name, total or one question's mark. Rows without a value (not marked yet, then
 * absent) always come last whatever the direction, so "highest first" and "lowest first" both start
 * with real scores. Equal values keep name order.
 */
export function sortRows(rows: readonly ResultRow[], questions: readonly ResultsQuestion[], key: SortKey, direction: SortDirection): ResultRow[] {
  const collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });
  const sign = direction === "ascending" ? 1 : -1;
  // Rows without a name (unmatched scans, every row of an anonymous batch) go by script number.
  const byName = (a: ResultRow, b: ResultRow) => {
    if (a.student_name === null || b.student_name === null) {
      if (a.student_name === b.student_name) return a.script_number - b.script_number;
      return a.student_name === null ? 1 : -1; // unmatched scans last
    }
    return collator.compare(a.student_name, b.student_name);
  };
  const valueOf = (row: ResultRow): number | null => {
    if (key.by === "total") return shownTotal(row, questions);
    if (key.by === "question") return row.status === "absent" ? null : (row.marks[key.questionId] ?? null);
    return null;
  };
  // Among rows without a value, scripts still to mark come before absent students.
  const absentLast = (a: ResultRow, b: ResultRow) => Number(a.status === "absent") - Number(b.status === "absent");
  return [...rows].sort((a, b) => {
    if (key.by === "name") {
      if ((a.student_name === null) !== (b.student_name === null)) return byName(a, b);
      return sign * byName(a, b);
    }
    const va = valueOf(a);
    const vb = valueOf(b);
    if (va === null || vb === null) return va === vb ? absentLast(a, b) || byName(a, b) : va === null ? 1 : -1;
    return va === vb ? byName(a, b) : sign * (va - vb);
  });
}

/** Marks are numeric(8,2): two decimals, without float dust from sums. */
function roundMarks(value: number): number {
  return Math.round(value * 100) / 100;
}

const marksFormat = new Intl.NumberFormat("en-GB", { maximumFractionDigits: 2 });
const percentFormat = new Intl.NumberFormat("en-GB", { maximumFractionDigits: 0 });
const precisePercentFormat = new Intl.NumberFormat("en-GB", { maximumFractionDigits: 1 });

export function formatMarks(value: number): string {
  return marksFormat.format(value);
}

/** "40%": whole percentages in the table and on the bars; `precise` gives one decimal for means. */
export function formatPercent(value: number, precise = false): string {
  return `${(precise ? precisePercentFormat : percentFormat).format(value)}%`;
}
