"use client";

import { useQueryClient } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import { useCallback, useEffect, useRef, useState } from "react";
import { useTRPC, useTRPCClient } from "@/lib/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";
import { type Draft, type Drafts, isCompleteMark, loadDrafts, reviseDraft, splitDraftKey, storeDrafts, withoutSavedDraft } from "./drafts";
import { SAVE_RETRIES, type SaveQueue, emptySaveQueue, requestSave, sendWithRetries, settleSave, worthRetrying } from "./save-queue";

/** Autosave waits this long after the last keystroke. */
const AUTOSAVE_DELAY_MS = 800;

const httpStatusOf = (error: unknown) => (error instanceof TRPCClientError ? (error.data as { httpStatus?: number } | undefined)?.httpStatus : undefined);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The marks of a batch being typed and saved (see save-queue.ts): every change is a draft, kept in
 * sessionStorage until the server has it, saved after a pause in typing or at once on confirm; drafts
 * left by a reload or a failed request are sent again once the questions are known.
 */
export function useSaveQueue(batchId: string, questions: readonly { id: string; max_marks: number | null }[]) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();

  const [drafts, setDrafts] = useState<Drafts>({});
  // The drafts and the queue as of now (state lags a render behind): every change goes through these,
  // so a save finishing between two keystrokes can never bring back a draft it already removed.
  const draftsRef = useRef(drafts);
  const updateDrafts = useCallback((change: (all: Drafts) => Drafts) => {
    draftsRef.current = change(draftsRef.current);
    setDrafts(draftsRef.current);
  }, []);
  const [queue, setQueue] = useState<SaveQueue>(emptySaveQueue);
  const queueRef = useRef(queue);
  const updateQueue = useCallback((next: SaveQueue) => {
    queueRef.current = next;
    setQueue(next);
  }, []);
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());

  useEffect(() => updateDrafts(() => loadDrafts(batchId)), [batchId, updateDrafts]);
  // Stores the ref, which the load above has already filled: the state is still empty in the first
  // render's effects, and storing it would wipe the drafts of the tab before they are sent again.
  useEffect(() => storeDrafts(batchId, draftsRef.current), [batchId, drafts]);

  const save = useCallback(
    async (key: string) => {
      // Once more while a newer draft of the key arrived during the request.
      for (let again = true; again; ) {
        const pending = draftsRef.current[key];
        const maxMarks = questions.find((q) => q.id === splitDraftKey(key).questionId)?.max_marks ?? null;
        const requested = requestSave(queueRef.current, key, pending, maxMarks);
        updateQueue(requested.queue);
        const request = requested.send;
        if (!request || !pending) return;
        const sent = await sendWithRetries(() => client.exam.marks.upsert.mutate(request), {
          retries: SAVE_RETRIES,
          worthRetrying: (error) => worthRetrying(httpStatusOf(error)),
          sleep,
        });
        if (sent.ok) {
          const { submissionId, questionId } = splitDraftKey(key);
          queryClient.setQueryData(trpc.exam.marks.forSubmission.queryKey({ submission_id: submissionId }), (old) =>
            old ? { ...old, marks: [...old.marks.filter((m) => m.question_id !== questionId), sent.value] } : old,
          );
          updateDrafts((all) => withoutSavedDraft(all, key, pending.revision));
        }
        const settled = settleSave(
          queueRef.current,
          key,
          sent.ok ? { saved: true } : { saved: false, message: errorMessage(sent.error), retryable: worthRetrying(httpStatusOf(sent.error)) },
        );
        updateQueue(settled.queue);
        void queryClient.invalidateQueries({ queryKey: trpc.exam.batches.queue.queryKey({ batch_id: batchId }) });
        // A refusal may come from a rubric changed meanwhile (an item deleted): read the template again.
        if (!sent.ok && !worthRetrying(httpStatusOf(sent.error))) void queryClient.invalidateQueries({ queryKey: trpc.exam.templates.get.pathKey() });
        again = settled.again;
      }
    },
    [batchId, client, queryClient, questions, trpc, updateDrafts, updateQueue],
  );

  const saveAll = useCallback(() => Object.keys(draftsRef.current).forEach((key) => void save(key)), [save]);

  // Drafts left by a reload or a failed request: send them again once the questions are known.
  const resent = useRef(false);
  useEffect(() => {
    if (resent.current || questions.length === 0) return;
    resent.current = true;
    saveAll();
  }, [batchId, questions.length, saveAll]);

  const cancelAutosave = (key: string) => {
    clearTimeout(timers.current.get(key));
    timers.current.delete(key);
  };

  /** Changes the draft of `key` (started from `fresh()` if there is none) and saves it after a pause in typing. */
  function edit(key: string, change: Partial<Pick<Draft, "mark" | "comment" | "items">>, fresh: () => Draft) {
    updateDrafts((all) => reviseDraft(all, key, change, fresh));
    cancelAutosave(key);
    // An incomplete mark ("1.") waits for the next keystroke or Enter; a comment alone is saved.
    timers.current.set(
      key,
      setTimeout(() => {
        timers.current.delete(key);
        const current = draftsRef.current[key];
        if (current && isCompleteMark(current.mark)) void save(key);
      }, AUTOSAVE_DELAY_MS),
    );
  }

  /** Changes the draft of `key` and saves it at once: a rubric item applied is a whole mark, nothing to wait for. */
  function editNow(key: string, change: Partial<Pick<Draft, "mark" | "comment" | "items">>, fresh: () => Draft) {
    updateDrafts((all) => reviseDraft(all, key, change, fresh));
    cancelAutosave(key);
    void save(key);
  }

  /** Confirms `mark` as the draft of `key` and saves it at once. */
  function confirm(key: string, mark: string, fresh: () => Draft) {
    updateDrafts((all) => reviseDraft(all, key, { mark, confirm: true }, fresh));
    cancelAutosave(key);
    void save(key);
  }

  return { drafts, saveStates: queue.states, edit, editNow, confirm, save, saveAll };
}
