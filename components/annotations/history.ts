/*
 * Undo and redo of the annotations of one script (pure). A step is what one action changed: for each
 * shape, what it was before and after (null: not there), so an add is [null → shape], a delete
 * [shape → null], a move or an edit [shape → shape]; a long stroke split into several shapes is one
 * step. Undoing a step puts every shape back as it was before; redoing puts it as it was after. Each
 * of those is then saved (PUT) or removed (DELETE) like any change.
 */

import type { Shape } from "./shapes";

export interface Change {
  id: string;
  before: Shape | null;
  after: Shape | null;
}
type Step = readonly Change[];

export interface History {
  done: readonly Step[];
  undone: readonly Step[];
}

export const emptyHistory: History = { done: [], undone: [] };

/** Steps kept to undo: older ones are forgotten. */
export const HISTORY_LIMIT = 200;

/** The history after an action: its step is the one to undo next, and nothing is left to redo. */
export function recordStep(history: History, step: Step): History {
  if (step.length === 0) return history;
  return { done: [...history.done, step].slice(-HISTORY_LIMIT), undone: [] };
}

/** Undoes the last step: the history after it and the shapes to put back (each id to its `before`), or null when there is nothing to undo. */
export function undoStep(history: History): { history: History; apply: { id: string; shape: Shape | null }[] } | null {
  const step = history.done.at(-1);
  if (!step) return null;
  return {
    history: { done: history.done.slice(0, -1), undone: [...history.undone, step] },
    // In reverse, so a shape changed twice in one step ends as it first was.
    apply: [...step].reverse().map((change) => ({ id: change.id, shape: change.before })),
  };
}

/** Redoes the last step undone, or null when there is none. */
export function redoStep(history: History): { history: History; apply: { id: string; shape: Shape | null }[] } | null {
  const step = history.undone.at(-1);
  if (!step) return null;
  return {
    history: { done: [...history.done, step], undone: history.undone.slice(0, -1) },
    apply: step.map((change) => ({ id: change.id, shape: change.after })),
  };
}
