/*
 * The save queue of the marking screen as pure transitions, for marks and annotations alike
 * (use-draft-queue.ts): a draft is asked to be saved, is refused (its mark or shape is not one), sent,
 * or waits for the save of the same key already on its way; a save that fails on the network or the
 * server is tried again, then shows as an error with Retry; a refusal shows as an error without one.
 */

import { type Draft, parseMark, splitDraftKey } from "./drafts";

/** What the last save of a draft did. */
export type SaveState = { state: "saving" } | { state: "saved" } | { state: "error"; message: string; retryable: boolean };

export interface SaveQueue {
  states: Readonly<Record<string, SaveState>>;
  /** Draft keys whose save is on its way. */
  sending: ReadonlySet<string>;
  /** Draft keys asked to be saved while on their way: saved again once that save settles (the draft may have changed). */
  again: ReadonlySet<string>;
}

export const emptySaveQueue: SaveQueue = { states: {}, sending: new Set(), again: new Set() };

/** The request that saves a draft (the body of `exam.marks.upsert`). */
export interface MarkUpsert {
  mark_id: string;
  body: {
    submission_id: string;
    question_id: string;
    awarded_marks: number | null;
    comment: string | null;
    confirmed?: true;
    /** The rubric items applied (the server sums them into the mark again). */
    mark_scheme_detail?: { type: "rubric"; items: string[] };
    /** The annotations that justify the mark (the server keeps those of the first marking on the script). */
    annotation_shape_ids?: string[];
  };
}

const withState = (queue: SaveQueue, key: string, state: SaveState): SaveQueue => ({ ...queue, states: { ...queue.states, [key]: state } });

const added = (set: ReadonlySet<string>, key: string) => new Set(set).add(key);

function removed(set: ReadonlySet<string>, key: string): ReadonlySet<string> {
  const copy = new Set(set);
  copy.delete(key);
  return copy;
}

/**
 * Asks for the draft of `key` to be saved, whatever it is a draft of (a mark, an annotation): the queue
 * after it, and the request to send, or null when there is nothing to send now (no draft, a draft that
 * `prepare` refuses, shown as an error without Retry, or a save of the same key on its way, after which
 * this one runs).
 */
export function requestSend<D, R>(queue: SaveQueue, key: string, draft: D | undefined, prepare: (draft: D) => { request: R } | { refused: string }): { queue: SaveQueue; send: R | null } {
  if (queue.sending.has(key)) return { queue: { ...queue, again: added(queue.again, key) }, send: null };
  if (draft === undefined) return { queue, send: null };
  const prepared = prepare(draft);
  // A draft that is not one is fixed by changing it, not by sending it again.
  if ("refused" in prepared) return { queue: withState(queue, key, { state: "error", message: prepared.refused, retryable: false }), send: null };
  return { queue: { ...withState(queue, key, { state: "saving" }), sending: added(queue.sending, key) }, send: prepared.request };
}

/**
 * The request that saves the mark draft of `key` (`draft`, for a question worth `maxMarks`), or why it
 * cannot be saved (a mark that is not one). `shapeIds`, when known, are the annotations that justify the
 * mark (its annotation_shape_ids).
 */
export function markUpsertOf(key: string, draft: Draft, maxMarks: number | null, shapeIds?: readonly string[]): { request: MarkUpsert } | { refused: string } {
  const parsed = draft.mark.trim() === "" ? null : parseMark(draft.mark, maxMarks);
  if (parsed && "error" in parsed) return { refused: parsed.error };
  const { submissionId, questionId } = splitDraftKey(key);
  return {
    request: {
      mark_id: draft.markId,
      body: {
        submission_id: submissionId,
        question_id: questionId,
        awarded_marks: parsed ? parsed.value : null,
        comment: draft.comment.trim() === "" ? null : draft.comment,
        ...(draft.confirm ? { confirmed: true as const } : {}),
        // No item applied and nothing typed is no mark: a rubric detail would make it the items' sum, a 0.
        ...(draft.items && (draft.items.length > 0 || parsed) ? { mark_scheme_detail: { type: "rubric" as const, items: draft.items } } : {}),
        ...(shapeIds ? { annotation_shape_ids: [...shapeIds] } : {}),
      },
    },
  };
}

/** Asks for the mark draft of `key` to be saved (requestSend with markUpsertOf). */
export function requestSave(queue: SaveQueue, key: string, draft: Draft | undefined, maxMarks: number | null, shapeIds?: readonly string[]): { queue: SaveQueue; send: MarkUpsert | null } {
  return requestSend(queue, key, draft, (pending) => markUpsertOf(key, pending, maxMarks, shapeIds));
}

/**
 * The save of `key` has settled: the queue after it, and whether it is to be saved again (asked for
 * meanwhile). A failure is `retryable` when sending the same mark again could work (the network, the
 * server, too many requests), not when the server refused the mark itself.
 */
export function settleSave(
  queue: SaveQueue,
  key: string,
  outcome: { saved: true } | { saved: false; message: string; retryable: boolean },
): { queue: SaveQueue; again: boolean } {
  const state: SaveState = outcome.saved ? { state: "saved" } : { state: "error", message: outcome.message, retryable: outcome.retryable };
  return {
    queue: { states: { ...queue.states, [key]: state }, sending: removed(queue.sending, key), again: removed(queue.again, key) },
    again: queue.again.has(key),
  };
}

/** Retries of a failed save (network or server error) before it shows as an error. */
export const SAVE_RETRIES = 3;

/**
 * A save is tried again after a network error (no status), a server error or 429 (too many requests);
 * any other refusal (400, 403, 404, 409, 413…) would only be refused again.
 */
export const worthRetrying = (httpStatus: number | undefined) => httpStatus === undefined || httpStatus >= 500 || httpStatus === 429;

/** The pause after failed attempt `attempt` (from 0): 0.4 s, doubling. */
export const retryDelayMs = (attempt: number) => 400 * 2 ** attempt;

/**
 * Runs `send` until it succeeds, it fails in a way not `worthRetrying`, or it has failed `1 + retries`
 * times. Every failure worth retrying is followed by its pause, the last one too (an error shows after it).
 */
export async function sendWithRetries<T>(
  send: () => Promise<T>,
  options: { retries: number; worthRetrying: (error: unknown) => boolean; sleep: (ms: number) => Promise<void> },
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  let failure: unknown = null;
  for (let attempt = 0; attempt <= options.retries; attempt++) {
    try {
      return { ok: true, value: await send() };
    } catch (error) {
      failure = error;
      if (!options.worthRetrying(error)) break;
      await options.sleep(retryDelayMs(attempt));
    }
  }
  return { ok: false, error: failure };
}
