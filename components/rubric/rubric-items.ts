/*
 * The rubric editor's pure rules (components/rubric/RubricEditor.tsx): a question's items in order and
 * the key each gets on the marking screen, points as typed and as shown, what an edit sends, where a
 * move puts an item, and which field a server refusal is about. No React here; tests/rubric-items.test.ts.
 */

/** A rubric item as exam.templates.get lists it (server/exam/rubrics.ts, rubricItemOutput). */
export interface RubricItemView {
  id: string;
  question_id: string;
  position: number;
  text: string;
  points: number;
  spec_ref: string | null;
  comment: string | null;
  /** Breaks a tie of positions as the server does; optional so that a caller's own item type fits. */
  created_at?: Date | string;
}

/** A question's items in marking order: by position, then as created (the server's order). */
export function itemsOfQuestion<T extends RubricItemView>(items: readonly T[], questionId: string): T[] {
  const time = (value: Date | string | undefined) => (value === undefined ? 0 : new Date(value).getTime());
  return items.filter((item) => item.question_id === questionId).sort((a, b) => a.position - b.position || time(a.created_at) - time(b.created_at));
}

/** The key that applies the item at `index` on the marking screen: 1–9, then 0 for the tenth, else none. */
export const itemKey = (index: number): string | null => (index < 9 ? String(index + 1) : index === 9 ? "0" : null);

/** Points as a marker reads them: "+2", "−1" (a true minus sign), "0", "+0.5". */
export function formatPoints(points: number): string {
  const magnitude = String(Number(Math.abs(points).toFixed(2)));
  if (points > 0) return `+${magnitude}`;
  if (points < 0) return `\u2212${magnitude}`;
  return "0";
}

/** Points as the field shows them for an edit: "2", "-1", "0.5" (typing a minus sign is easier). */
const pointsInput = (points: number): string => String(Number(points.toFixed(2)));

/** Most points an item may have either way (numeric(8, 2) on the server). */
const POINTS_LIMIT = 999_999.99;

/** A sign, digits, and at most one decimal point or comma; the minus may be typed as − or -. */
const typedPoints = /^([+\-\u2212]?)\s*(\d+)(?:[.,](\d+))?$/;

/** Points as typed: "+2", "-1", "−1", "1.5", "1,5". Nothing else is turned into a number. */
export function parsePoints(typed: string): { value: number } | { error: string } {
  const text = typed.trim();
  if (text === "") return { error: "Points are required, e.g. 2 or -1." };
  const match = typedPoints.exec(text);
  if (!match) return { error: "Points must be a number such as 2, -1 or 0.5." };
  const [, sign, whole, decimals = ""] = match;
  if (decimals.length > 2) return { error: "Points can have at most two decimals." };
  const magnitude = Number(`${whole}.${decimals || "0"}`);
  if (magnitude > POINTS_LIMIT) return { error: `Points must be between −${POINTS_LIMIT} and +${POINTS_LIMIT}.` };
  return { value: sign === "-" || sign === "\u2212" ? -magnitude || 0 : magnitude };
}

/** The fields of the add and edit forms, as typed. */
export interface ItemDraft {
  text: string;
  points: string;
  spec_ref: string;
  comment: string;
}

export type DraftField = keyof ItemDraft;

export const emptyDraft: ItemDraft = { text: "", points: "", spec_ref: "", comment: "" };

export const draftOf = (item: RubricItemView): ItemDraft => ({
  text: item.text,
  points: pointsInput(item.points),
  spec_ref: item.spec_ref ?? "",
  comment: item.comment ?? "",
});

export interface ItemBody {
  text: string;
  points: number;
  spec_ref: string | null;
  comment: string | null;
}

export type FieldErrors = Partial<Record<DraftField, string>>;

/** What a draft saves as (optional fields left blank are none), or what must be corrected first. */
export function bodyOfDraft(draft: ItemDraft): { body: ItemBody } | { errors: FieldErrors } {
  const errors: FieldErrors = {};
  const text = draft.text.trim();
  if (!text) errors.text = "Describe what the item rewards or penalises.";
  const points = parsePoints(draft.points);
  if ("error" in points) errors.points = points.error;
  if (Object.keys(errors).length > 0 || "error" in points) return { errors };
  return { body: { text, points: points.value, spec_ref: draft.spec_ref.trim() || null, comment: draft.comment.trim() || null } };
}

/** The fields an edit changes (only those are sent: a change of points re-scores marks). */
export function changesOf(item: RubricItemView, body: ItemBody): Partial<ItemBody> {
  return {
    ...(body.text !== item.text && { text: body.text }),
    ...(body.points !== item.points && { points: body.points }),
    ...(body.spec_ref !== item.spec_ref && { spec_ref: body.spec_ref }),
    ...(body.comment !== item.comment && { comment: body.comment }),
  };
}

/**
 * The position to send to move `ordered[index]` one place up (-1) or down (1), or null at either end.
 * The server puts the item at that position and moves those at or after it one down, so up takes the
 * previous item's position and down the one after the next item's.
 */
export function movePosition(ordered: readonly RubricItemView[], index: number, direction: -1 | 1): number | null {
  const neighbour = ordered[index + direction];
  if (!ordered[index] || !neighbour) return null;
  return direction === -1 ? neighbour.position : neighbour.position + 1;
}

/** The order after such a move, as the editor shows it until the server's list arrives. */
export function moved<T>(ordered: readonly T[], index: number, direction: -1 | 1): T[] {
  const target = index + direction;
  if (target < 0 || target >= ordered.length) return [...ordered];
  const next = [...ordered];
  [next[index], next[target]] = [next[target]!, next[index]!];
  return next;
}

/**
 * Where a server refusal goes: "Points: must have at most 2 decimals" is said under Points as "Must have
 * at most 2 decimals"; a sentence that names no field (a refusal of the owner check) is the form's.
 */
export function placeError(message: string): { field: DraftField | null; message: string } {
  const prefixes: [string, DraftField][] = [
    ["Text:", "text"],
    ["Points:", "points"],
    ["Specification point:", "spec_ref"],
    ["Comment:", "comment"],
  ];
  const found = prefixes.find(([prefix]) => message.startsWith(prefix));
  if (!found) return { field: null, message };
  const rest = message.slice(found[0].length).trim();
  return { field: found[1], message: rest.charAt(0).toUpperCase() + rest.slice(1) };
}

/** What an edit or a deletion did to the marks: "Re-scored 14 marks." */
export function rescoredSentence(count: number): string {
  if (count === 0) return "No recorded marks used it, so none were re-scored.";
  return `Re-scored ${count} mark${count === 1 ? "" : "s"}.`;
}

/**
 * When the items can add up to more than the question's maximum (all its positive items applied), the
 * most they make and the maximum; else null. Allowed (a marker may give 2 of 3 ways to earn a mark),
 * but said, so that a rubric that does not fit its question is not a surprise at marking time.
 */
export function rubricOverMaximum(items: readonly { points: number }[], maxMarks: number | null): { most: number; maxMarks: number } | null {
  if (maxMarks === null) return null;
  // In hundredths, as the mark is summed.
  const most = items.reduce((total, item) => total + Math.max(0, Math.round(item.points * 100)), 0) / 100;
  return most > maxMarks ? { most, maxMarks } : null;
}

/** The warning beside a rubric whose items add up to more than its question's maximum. */
export const overMaximumWarning = ({ most, maxMarks }: { most: number; maxMarks: number }, questionLabel: string) =>
  `The items add up to ${most}, more than the ${maxMarks} mark${maxMarks === 1 ? "" : "s"} question ${questionLabel} is worth: a mark made of them stops at ${maxMarks}.`;
