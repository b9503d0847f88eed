"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRef } from "react";
import { useTRPC, useTRPCClient } from "@/components/trpc/client";
import { type Draft, draftsStorageKey, isCompleteMark, reviseDraft, splitDraftKey } from "./drafts";
import { type MarkUpsert, markUpsertOf, worthRetrying } from "./save-queue";
import { httpStatusOf, useDraftQueue } from "./use-draft-queue";

/** Autosave waits this long after the last keystroke. */
const AUTOSAVE_DELAY_MS = 800;

/**
 * The marks of a batch being typed and saved (use-draft-queue.ts, save-queue.ts): every change is a
 * draft, kept in sessionStorage until the server has it, saved after a pause in typing or at once on
 * confirm; drafts left by a reload or a failed request are sent again once the questions are known.
 * `shapeIdsOf` names the annotations that justify a question's mark on a script (undefined while they
 * are not known: the mark's annotation_shape_ids are then left as they are).
 */
export function useSaveQueue(
  batchId: string,
  questions: readonly { id: string; max_marks: number | null }[],
  shapeIdsOf?: (submissionId: string, questionId: string) => readonly string[] | undefined,
) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());

  const queue = useDraftQueue<Draft, MarkUpsert, Awaited<ReturnType<typeof client.exam.marks.upsert.mutate>>>({
    storageKey: draftsStorageKey(batchId),
    ready: questions.length > 0,
    prepare: (key, draft) => {
      const { submissionId, questionId } = splitDraftKey(key);
      const maxMarks = questions.find((q) => q.id === questionId)?.max_marks ?? null;
      return markUpsertOf(key, draft, maxMarks, shapeIdsOf?.(submissionId, questionId));
    },
    send: (request) => client.exam.marks.upsert.mutate(request),
    onSent: (key, saved) => {
      const { submissionId, questionId } = splitDraftKey(key);
      queryClient.setQueryData(trpc.exam.marks.forSubmission.queryKey({ submission_id: submissionId }), (old) =>
        old ? { ...old, marks: [...old.marks.filter((m) => m.question_id !== questionId), saved] } : old,
      );
    },
    onSettled: (_key, outcome) => {
      void queryClient.invalidateQueries({ queryKey: trpc.exam.batches.queue.queryKey({ batch_id: batchId }) });
      // A refusal may come from a rubric changed meanwhile (an item deleted): read the template again.
      if (!outcome.ok && !worthRetrying(httpStatusOf(outcome.error))) void queryClient.invalidateQueries({ queryKey: trpc.exam.templates.get.pathKey() });
    },
  });
  const { drafts, updateDrafts, save, saveAll } = queue;

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
        const current = queue.draftsRef.current[key];
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

  return { drafts, saveStates: queue.saveStates, edit, editNow, confirm, save, saveAll };
}
