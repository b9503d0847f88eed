"use client";

import { TRPCClientError } from "@trpc/client";
import { useCallback, useEffect, useRef, useState } from "react";
import { readStoredDraft, writeStoredDraft } from "@/lib/draft-storage";
import { errorMessage } from "@/lib/trpc/errors";
import { withoutSavedDraft } from "./drafts";
import { SAVE_RETRIES, type SaveQueue, emptySaveQueue, requestSend, sendWithRetries, settleSave, worthRetrying } from "./save-queue";

export const httpStatusOf = (error: unknown) => (error instanceof TRPCClientError ? (error.data as { httpStatus?: number } | undefined)?.httpStatus : undefined);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Drafts kept until the server has them, whatever they are drafts of (marks: use-save-queue.ts;
 * annotations: use-annotations.ts): every change is a draft, kept in
 * sessionStorage under `storageKey` (a reload or a lost connection loses nothing); a save goes through
 * the save queue (save-queue.ts: one request per key at a time, retried, a newer draft saved after it);
 * drafts left by a reload or a failed request are sent again once `ready`.
 */
export function useDraftQueue<D extends { revision: number }, R, T>({
  storageKey,
  ready,
  prepare,
  send,
  onSent,
  onSettled,
}: {
  storageKey: string;
  /** Whether drafts can be sent (what `prepare` needs is known): the drafts of a reload are sent again then. */
  ready: boolean;
  /** The request that saves a draft, or why it cannot be saved as it is (shown without Retry). */
  prepare: (key: string, draft: D) => { request: R } | { refused: string };
  send: (request: R) => Promise<T>;
  /** The server has the draft (before the draft is dropped). */
  onSent?: (key: string, value: T, draft: D) => void;
  onSettled?: (key: string, outcome: { ok: true } | { ok: false; error: unknown }) => void;
}) {
  const [drafts, setDrafts] = useState<Record<string, D>>({});
  // The drafts and the queue as of now (state lags a render behind): every change goes through these,
  // so a save finishing between two changes can never bring back a draft it already removed.
  const draftsRef = useRef(drafts);
  const updateDrafts = useCallback((change: (all: Record<string, D>) => Record<string, D>) => {
    draftsRef.current = change(draftsRef.current);
    setDrafts(draftsRef.current);
  }, []);
  const [queue, setQueue] = useState<SaveQueue>(emptySaveQueue);
  const queueRef = useRef(queue);
  const updateQueue = useCallback((next: SaveQueue) => {
    queueRef.current = next;
    setQueue(next);
  }, []);

  useEffect(() => updateDrafts(() => readStoredDraft<Record<string, D>>("session", storageKey) ?? {}), [storageKey, updateDrafts]);
  // Stores the ref, which the load above has already filled: the state is still empty in the first
  // render's effects, and storing it would wipe the drafts of the tab before they are sent again.
  useEffect(() => writeStoredDraft("session", storageKey, Object.keys(draftsRef.current).length === 0 ? null : draftsRef.current), [storageKey, drafts]);

  // The latest callbacks, so a save started by an older render settles with the current ones.
  const callbacks = useRef({ prepare, send, onSent, onSettled });
  useEffect(() => {
    callbacks.current = { prepare, send, onSent, onSettled };
  });

  const save = useCallback(
    async (key: string) => {
      // Once more while a newer draft of the key arrived during the request.
      for (let again = true; again; ) {
        const pending = draftsRef.current[key];
        const requested = requestSend(queueRef.current, key, pending, (draft) => callbacks.current.prepare(key, draft));
        updateQueue(requested.queue);
        const request = requested.send;
        if (request === null || !pending) return;
        const sent = await sendWithRetries(() => callbacks.current.send(request), {
          retries: SAVE_RETRIES,
          worthRetrying: (error) => worthRetrying(httpStatusOf(error)),
          sleep,
        });
        if (sent.ok) {
          callbacks.current.onSent?.(key, sent.value, pending);
          updateDrafts((all) => withoutSavedDraft(all, key, pending.revision));
        }
        const settled = settleSave(
          queueRef.current,
          key,
          sent.ok ? { saved: true } : { saved: false, message: errorMessage(sent.error), retryable: worthRetrying(httpStatusOf(sent.error)) },
        );
        updateQueue(settled.queue);
        callbacks.current.onSettled?.(key, sent.ok ? { ok: true } : { ok: false, error: sent.error });
        again = settled.again;
      }
    },
    [updateDrafts, updateQueue],
  );

  const saveAll = useCallback(() => Object.keys(draftsRef.current).forEach((key) => void save(key)), [save]);

  // Drafts left by a reload or a failed request: sent again once they can be.
  const resent = useRef<string | null>(null);
  useEffect(() => {
    if (!ready || resent.current === storageKey) return;
    resent.current = storageKey;
    saveAll();
  }, [ready, storageKey, saveAll]);

  /** Changes the draft of `key` (its revision bumped; `change` gets the current draft, if any). */
  const revise = useCallback(
    (key: string, change: (current: D | undefined) => Omit<D, "revision">) =>
      updateDrafts((all) => ({ ...all, [key]: { ...change(all[key]), revision: (all[key]?.revision ?? 0) + 1 } as D })),
    [updateDrafts],
  );

  return { drafts, draftsRef, updateDrafts, revise, saveStates: queue.states, save, saveAll };
}
