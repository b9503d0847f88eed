/*
 * Rubric items on the marking screen, as pure functions: which item a key applies (the keys are
 * components/rubric/rubric-items.ts's itemKey), the mark a set of applied items makes, and what a key
 * press changes and how that is said. The server's rule (app.rubric_mark) is the same: the items' points
 * summed, within 0..max_marks.
 */

import { formatPoints } from "@/components/rubric/rubric-items";

/** The index of the item a digit applies (1 → 0, …, 9 → 8, 0 → 9). */
export const itemIndexOfKey = (key: string): number | null => (/^[0-9]$/.test(key) ? (key === "0" ? 9 : Number(key) - 1) : null);

/** The key that gives no marks on a question with `itemCount` items: 0, unless a tenth item takes it. */
export const noMarksKey = (itemCount: number): "0" | null => (itemCount < 10 ? "0" : null);

/** `applied` with `itemId` added (at the end) or removed. */
export const toggled = (applied: readonly string[], itemId: string): string[] =>
  applied.includes(itemId) ? applied.filter((id) => id !== itemId) : [...applied, itemId];

/** What applied items make: their sum, and the mark (the sum within 0..max), to two decimals. */
export function rubricMark(items: readonly { id: string; points: number }[], applied: readonly string[], maxMarks: number | null): { sum: number; mark: number } {
  const byId = new Map(items.map((item) => [item.id, item.points]));
  // In hundredths, so that 0.1 + 0.2 is 0.3.
  const hundredths = applied.reduce((total, id) => total + Math.round((byId.get(id) ?? 0) * 100), 0);
  const sum = hundredths / 100;
  const mark = Math.max(0, Math.min(sum, maxMarks ?? Number.POSITIVE_INFINITY));
  return { sum, mark };
}

/** The items a recorded mark is made of, or null for a mark that is not a rubric's. */
export function appliedItemsOf(detail: unknown): string[] | null {
  if (typeof detail !== "object" || detail === null || Array.isArray(detail)) return null;
  const { type, items } = detail as { type?: unknown; items?: unknown };
  if (type !== "rubric" || !Array.isArray(items)) return null;
  return items.filter((id): id is string => typeof id === "string");
}

/**
 * The mark field of a rubric question: the items' mark while any is applied; with none, what was typed
 * (the 0 of "no marks") or recorded, else empty. No item applied is no mark, never a 0 by itself.
 */
export function rubricMarkText(
  items: readonly { id: string; points: number }[],
  applied: readonly string[],
  maxMarks: number | null,
  otherwise: string,
): string {
  return applied.length > 0 ? String(rubricMark(items, applied, maxMarks).mark) : otherwise;
}

/** A change of a rubric question's mark: the items applied after it, its mark ("" for none), and the sentence that says it. */
export interface RubricChange {
  items: string[];
  mark: string;
  /** Said aloud (a live region) and shown: which item went on or off, and the mark now. */
  said: string;
  /** The item changed and whether it is now applied; null for "no marks". */
  changed: { itemId: string; applied: boolean } | null;
}

type Item = { id: string; text: string; points: number };

const outOf = (mark: number, maxMarks: number | null) => `${mark}${maxMarks === null ? "" : ` out of ${maxMarks}`}`;

/** "Items 1 and 3", "Item 2", by their numbers on the rubric. */
function itemNumbers(items: readonly Item[], ids: readonly string[]): string {
  const numbers = items.flatMap((item, index) => (ids.includes(item.id) ? [String(index + 1)] : []));
  return numbers.length === 1 ? `item ${numbers[0]}` : `items ${numbers.slice(0, -1).join(", ")} and ${numbers.at(-1)}`;
}

/**
 * The item at `index` pressed (its key or a click) on a question worth `maxMarks`: applied, or removed
 * when it already was. A removal says so as plainly as an application ("Item 2 removed: …"); with no
 * item left the mark is empty, not 0. Null when no item is at `index`.
 */
export function toggleRubricItem(items: readonly Item[], applied: readonly string[], index: number | null, maxMarks: number | null): RubricChange | null {
  const item = index === null ? undefined : items[index];
  if (!item) return null;
  const after = toggled(applied, item.id);
  const on = after.includes(item.id);
  const what = `Item ${index! + 1} ${on ? "applied" : "removed"}: ${item.text} (${formatPoints(item.points)}).`;
  const mark = rubricMarkText(items, after, maxMarks, "");
  const now = after.length === 0 ? "No item is applied: no mark yet." : `Mark ${outOf(Number(mark), maxMarks)}.`;
  return { items: after, mark, said: `${what} ${now}`, changed: { itemId: item.id, applied: on } };
}

/** "No marks": the question is given 0 on purpose, every item applied removed (and said so). */
export function giveNoMarks(items: readonly Item[], applied: readonly string[], maxMarks: number | null): RubricChange {
  const removed = applied.filter((id) => items.some((item) => item.id === id));
  const said = `No marks: ${outOf(0, maxMarks)}.${removed.length > 0 ? ` ${capitalised(itemNumbers(items, removed))} removed.` : ""}`;
  return { items: [], mark: "0", said, changed: null };
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The hint beside a mark: how a rubric mark was made ("Items 1 and 3: 6, capped at 5."), or how to make
 * one. `applied` is undefined for a typed mark recorded on a rubric question; `mark` is the field's text.
 */
export function markHint({ isRubric, items, applied, maxMarks, mark }: {
  isRubric: boolean;
  items: readonly { id: string; points: number }[];
  applied: readonly string[] | undefined;
  maxMarks: number | null;
  mark: string;
}): string {
  if (!isRubric) return "";
  if (applied === undefined) return "A typed mark: applying an item replaces it with the items' sum. ";
  if (applied.length === 0) {
    if (mark.trim() !== "") return "No marks: 0, given on purpose. ";
    return `Apply items by their keys, or ${noMarksKey(items.length) ? "0" : "“No marks”"} for no marks. `;
  }
  const score = rubricMark(items, applied, maxMarks);
  const keys = items.flatMap((item, index) => (applied.includes(item.id) ? [String(index + 1)] : []));
  const named = keys.length === 1 ? `Item ${keys[0]}` : `Items ${keys.slice(0, -1).join(", ")} and ${keys.at(-1)}`;
  if (score.sum === score.mark) return `${named}: ${score.mark}. `;
  return `${named}: ${score.sum}, ${score.mark === 0 ? "counted as 0" : `capped at ${score.mark}`}. `;
}

/**
 * Why Enter records nothing on a question with no mark yet: an empty question stays empty, and a 0 is
 * only ever typed (or "No marks" chosen). Says how to give 0 and how to leave the question for later.
 */
export function nothingToConfirm(isRubric: boolean, itemCount: number): string {
  const zero = !isRubric ? "type a mark (0 for no marks)" : `apply items, or ${noMarksKey(itemCount) ? "press 0" : "choose No marks"} to give no marks`;
  return `Nothing is recorded for this question yet: ${zero}. To leave it for later, press ↓.`;
}
