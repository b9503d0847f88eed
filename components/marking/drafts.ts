/** A mark being typed and not yet saved: what the teacher entered, kept until the server has it. */
export interface Draft {
  /** The mark entry's id: the recorded one, or a fresh UUID for a new entry (stable across retries). */
  markId: string;
  mark: string;
  comment: string;
  /** Enter was pressed: save with confirmed true. */
  confirm: boolean;
  /** The rubric items applied, on a question with a rubric: the mark is their sum (rubric-marks.ts). */
  items?: string[];
  /** Bumped on every edit, so a save that finished after a newer edit does not clear the newer draft. */
  revision: number;
}

export type Drafts = Record<string, Draft>;

export const draftKey = (submissionId: string, questionId: string) => `${submissionId}:${questionId}`;

/** The submission and question a draft key names. */
export function splitDraftKey(key: string): { submissionId: string; questionId: string } {
  const [submissionId, questionId] = key.split(":") as [string, string];
  return { submissionId, questionId };
}

/** The drafts with `change` made to the draft of `key` (started from `fresh()` when there is none), its revision bumped. */
export function reviseDraft(drafts: Drafts, key: string, change: Partial<Pick<Draft, "mark" | "comment" | "confirm" | "items">>, fresh: () => Draft): Drafts {
  const base = drafts[key] ?? fresh();
  return { ...drafts, [key]: { ...base, ...change, revision: base.revision + 1 } };
}

/** The drafts without the draft of `key` once the server has its `revision`; a newer edit stays to be saved. */
export function withoutSavedDraft<D extends { revision: number }>(drafts: Record<string, D>, key: string, revision: number): Record<string, D> {
  if (drafts[key]?.revision !== revision) return drafts;
  const { [key]: _saved, ...rest } = drafts;
  return rest;
}

/** The sessionStorage key of a batch's mark drafts: a reload or a closed tab of the session loses nothing. */
export const draftsStorageKey = (batchId: string) => `markbook:marking-drafts:${batchId}`;

const markPattern = /^\d+(\.\d{1,2})?$/;

/** Whether a typed mark can be saved as it is: empty, or a number such as 2 or 1.5 ("1." waits for the next keystroke or Enter). */
export const isCompleteMark = (text: string) => text.trim() === "" || markPattern.test(text.trim());

/** A typed mark as a number, or why it is not one for a question worth `max` marks. */
export function parseMark(text: string, max: number | null): { value: number } | { error: string } {
  const trimmed = text.trim();
  if (trimmed === "") return { error: "Type a mark first." };
  if (!markPattern.test(trimmed)) return { error: "A mark is a number such as 2 or 1.5." };
  const value = Number(trimmed);
  if (max !== null && value > max) return { error: `At most ${max} mark${max === 1 ? "" : "s"} for this question.` };
  return { value };
}
