/*
 * Rubric items on the marking screen, as pure functions: which key applies which item, and the mark a
 * set of applied items makes. The server's rule (app.rubric_mark) is the same: the items' points summed,
 * within 0..max_marks.
 */

export interface RubricItemView {
  id: string;
  question_id: string;
  position: number;
  text: string;
  points: number;
  spec_ref: string | null;
  comment: string | null;
}

/** Items keys apply: 1–9, then 0 for the tenth. */
export const KEYED_ITEMS = 10;

/** The key that applies the item at `index` of its question's rubric, or null past the tenth. */
export const itemKey = (index: number): string | null => (index < 9 ? String(index + 1) : index === 9 ? "0" : null);

/** The index of the item a digit applies (1 → 0, …, 9 → 8, 0 → 9). */
export const itemIndexOfKey = (key: string): number | null => (/^[0-9]$/.test(key) ? (key === "0" ? 9 : Number(key) - 1) : null);

/** A question's items in their order (the list may hold every question's). */
export const itemsOfQuestion = (items: readonly RubricItemView[], questionId: string): RubricItemView[] =>
  items.filter((item) => item.question_id === questionId).sort((a, b) => a.position - b.position);

/** `applied` with `itemId` added (at the end) or removed. */
export const toggled = (applied: readonly string[], itemId: string): string[] =>
  applied.includes(itemId) ? applied.filter((id) => id !== itemId) : [...applied, itemId];

/** What applied items make: their sum, and the mark (the sum within 0..max), to two decimals. */
export function rubricMark(items: readonly RubricItemView[], applied: readonly string[], maxMarks: number | null): { sum: number; mark: number } {
  const byId = new Map(items.map((item) => [item.id, item.points]));
  // In hundredths, so that 0.1 + 0.2 is 0.3.
  const hundredths = applied.reduce((total, id) => total + Math.round((byId.get(id) ?? 0) * 100), 0);
  const sum = hundredths / 100;
  const mark = Math.max(0, Math.min(sum, maxMarks ?? Number.POSITIVE_INFINITY));
  return { sum, mark };
}

/** Points as a marker reads them: "+2", "−1", "0", "+0.5". */
export const signedPoints = (points: number): string => (points > 0 ? `+${points}` : points < 0 ? `−${Math.abs(points)}` : "0");

/** The items a recorded mark is made of, or null for a mark that is not a rubric's. */
export function appliedItemsOf(detail: unknown): string[] | null {
  if (typeof detail !== "object" || detail === null || Array.isArray(detail)) return null;
  const { type, items } = detail as { type?: unknown; items?: unknown };
  if (type !== "rubric" || !Array.isArray(items)) return null;
  return items.filter((id): id is string => typeof id === "string");
}
