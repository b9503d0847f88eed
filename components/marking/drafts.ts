/** A mark being typed and not yet saved: what the teacher entered, kept until the server has it. */
export interface Draft {
  /** The mark entry's id: the recorded one, or a fresh UUID for a new entry (stable across retries). */
  markId: string;
  mark: string;
  comment: string;
  /** Enter was pressed: save with confirmed true. */
  confirm: boolean;
  /** Bumped on every edit, so a save that finished after a newer edit does not clear the newer draft. */
  revision: number;
}

export type Drafts = Record<string, Draft>;

export const draftKey = (submissionId: string, questionId: string) => `${submissionId}:${questionId}`;

const storageKey = (batchId: string) => `markbook:marking-drafts:${batchId}`;

/** Drafts of this batch kept in sessionStorage: a reload or a closed tab of the session loses nothing. */
export function loadDrafts(batchId: string): Drafts {
  try {
    const raw = window.sessionStorage.getItem(storageKey(batchId));
    return raw ? (JSON.parse(raw) as Drafts) : {};
  } catch {
    return {};
  }
}

export function storeDrafts(batchId: string, drafts: Drafts): void {
  try {
    if (Object.keys(drafts).length === 0) window.sessionStorage.removeItem(storageKey(batchId));
    else window.sessionStorage.setItem(storageKey(batchId), JSON.stringify(drafts));
  } catch {
    // Storage full or disabled: the drafts still live in memory.
  }
}

/** A typed mark as a number, or why it is not one for a question worth `max` marks. */
export function parseMark(text: string, max: number | null): { value: number } | { error: string } {
  const trimmed = text.trim();
  if (trimmed === "") return { error: "Type a mark first." };
  if (!/^\d+(\.\d{1,2})?$/.test(trimmed)) return { error: "A mark is a number such as 2 or 1.5." };
  const value = Number(trimmed);
  if (max !== null && value > max) return { error: `At most ${max} mark${max === 1 ? "" : "s"} for this question.` };
  return { value };
}
