/*
 * Rubric items on the marking screen, as pure functions: which item a key applies (the keys are
 * components/rubric/rubric-items.ts's itemKey), and the mark a set of applied items makes. The server's rule (app.rubric_mark) is the same: the items' points summed,
 * within 0..max_marks.
 */

/** The index of the item a digit applies (1 → 0, …, 9 → 8, 0 → 9). */
export const itemIndexOfKey = (key: string): number | null => (/^[0-9]$/.test(key) ? (key === "0" ? 9 : Number(key) - 1) : null);

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
