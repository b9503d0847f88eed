/**
 * Drafts kept in the browser while the server does not have them yet (marks being typed, a template
 * being edited): JSON under one key. Storage that is full, disabled or holds something unreadable
 * never breaks the screen: the draft then lives in memory only.
 */

export type DraftStore = "session" | "local";

const storageOf = (store: DraftStore): Storage => (store === "session" ? window.sessionStorage : window.localStorage);

/** The draft stored under `key`, or null when there is none or it cannot be read. */
export function readStoredDraft<Draft>(store: DraftStore, key: string): Draft | null {
  try {
    const raw = storageOf(store).getItem(key);
    return raw ? (JSON.parse(raw) as Draft) : null;
  } catch {
    return null;
  }
}

/** Stores the draft under `key`; null removes it. */
export function writeStoredDraft(store: DraftStore, key: string, draft: unknown): void {
  try {
    if (draft === null) storageOf(store).removeItem(key);
    else storageOf(store).setItem(key, JSON.stringify(draft));
  } catch {
    // Storage full or disabled: the draft still lives in memory.
  }
}
