"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo, useState } from "react";
import type { AnnotationLayer } from "@/lib/rules/annotation";
import { useTRPC, useTRPCClient } from "@/components/trpc/client";
import { errorCode } from "@/lib/trpc/errors";
import { useDraftQueue } from "./use-draft-queue";
import { type Change, type History, emptyHistory, recordStep, redoStep, undoStep } from "@/components/annotations/history";
import { type Shape, type StoredShape, bodyOf, shapeOfStored, shapeProblem } from "@/components/annotations/shapes";

/** A change of one annotation the server does not have yet: the shape to save, or null to remove it. */
interface AnnotationDraft {
  submissionId: string;
  shape: Shape | null;
  revision: number;
}

type Request = { save: Shape } | { remove: { id: string; submissionId: string } };

/** The sessionStorage key of a batch's annotation drafts of one layer. */
const storageKey = (batchId: string, layer: AnnotationLayer) => `markbook:annotation-drafts:${batchId}:${layer}`;

/**
 * The annotations of the script on screen, on one layer (the first marking's, or a blind second
 * marker's own), with the durability of marks: every change (add, move, edit, delete, undo, redo) is a
 * draft in sessionStorage until the server has it, saved at once through the marks' save queue
 * (use-draft-queue.ts: retried, a failure shown with the server's sentence); drafts left by a reload or
 * a lost connection are sent again. Undo and redo per script (history.ts). What is shown is the server's
 * list with the drafts over it.
 */
export function useAnnotations({ batchId, submissionId, layer, readOnly }: { batchId: string; submissionId: string | null; layer: AnnotationLayer; readOnly: boolean }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const listKey = useCallback((submission: string) => trpc.exam.annotations.list.queryKey({ submission_id: submission, layer }), [trpc, layer]);
  const list = useQuery({ ...trpc.exam.annotations.list.queryOptions({ submission_id: submissionId ?? "", layer }), enabled: Boolean(submissionId) });

  const queue = useDraftQueue<AnnotationDraft, Request, StoredShape | null>({
    storageKey: storageKey(batchId, layer),
    ready: true,
    prepare: (id, draft) => {
      if (draft.shape === null) return { request: { remove: { id, submissionId: draft.submissionId } } };
      const problem = shapeProblem(draft.shape);
      return problem ? { refused: `This annotation cannot be saved: ${problem}.` } : { request: { save: draft.shape } };
    },
    send: async (request) => {
      if ("save" in request) return client.exam.annotations.save.mutate({ annotation_id: request.save.id, body: bodyOf(request.save) });
      try {
        await client.exam.annotations.remove.mutate({ annotation_id: request.remove.id });
      } catch (error) {
        // Already removed (a retry after a lost answer, or never saved): done.
        if (errorCode(error) !== "NOT_FOUND") throw error;
      }
      return null;
    },
    onSent: (id, saved, draft) => {
      // A read of the list on its way may have left before this save: it would bring the shape back as
      // it was (or without it) once the draft is dropped. It is cancelled; a list not read yet is read again.
      const key = listKey(draft.submissionId);
      void queryClient.cancelQueries({ queryKey: key, exact: true });
      if (!queryClient.getQueryData(key)) void queryClient.invalidateQueries({ queryKey: key, exact: true });
      queryClient.setQueryData(key, (old) => {
        if (!old) return old;
        const others = old.annotations.filter((annotation) => annotation.id !== id);
        return { ...old, annotations: saved ? [...others, saved as (typeof old.annotations)[number]] : others };
      });
    },
  });
  const { drafts, revise, save, saveStates } = queue;

  /** The shapes of the script on screen: the server's, the drafts over them (a removal hides one). */
  const shapes = useMemo(() => {
    if (!submissionId) return [];
    const stored = (list.data?.annotations ?? []).map((annotation) => shapeOfStored(annotation as StoredShape));
    const pending = Object.entries(drafts).filter(([, draft]) => draft.submissionId === submissionId);
    const changed = new Map(pending.map(([id, draft]) => [id, draft.shape]));
    const shown = stored.flatMap((shape) => {
      if (!changed.has(shape.id)) return [shape];
      const draft = changed.get(shape.id);
      return draft ? [draft] : [];
    });
    const known = new Set(stored.map((shape) => shape.id));
    for (const [id, draft] of pending) if (draft.shape && !known.has(id)) shown.push(draft.shape);
    return shown;
  }, [drafts, list.data, submissionId]);

  const [histories, setHistories] = useState<Record<string, History>>({});
  const history = (submissionId && histories[submissionId]) || emptyHistory;

  /** Puts each shape as given (null: removed), as drafts saved at once. */
  const put = useCallback(
    (target: string, changes: readonly { id: string; shape: Shape | null }[]) => {
      for (const { id, shape } of changes) {
        revise(id, () => ({ submissionId: target, shape }));
        void save(id);
      }
    },
    [revise, save],
  );

  /** Makes a change (an add, a move, an edit, a delete: each shape's before and after), saved and undoable as one step. */
  const change = useCallback(
    (step: readonly Change[]) => {
      if (!submissionId || readOnly || step.length === 0) return;
      put(
        submissionId,
        step.map((entry) => ({ id: entry.id, shape: entry.after })),
      );
      setHistories((all) => ({ ...all, [submissionId]: recordStep(all[submissionId] ?? emptyHistory, step) }));
    },
    [put, readOnly, submissionId],
  );

  const travel = (direction: "undo" | "redo") => {
    if (!submissionId || readOnly) return false;
    const moved = (direction === "undo" ? undoStep : redoStep)(history);
    if (!moved) return false;
    put(submissionId, moved.apply);
    setHistories((all) => ({ ...all, [submissionId]: moved.history }));
    return true;
  };

  const unsaved = Object.keys(drafts).length;
  const failures = Object.entries(saveStates).flatMap(([id, state]) => (state.state === "error" && drafts[id] ? [{ id, message: state.message, retryable: state.retryable }] : []));
  const saving = Object.entries(saveStates).some(([id, state]) => state.state === "saving" && drafts[id]);

  return {
    /** The shapes of the script on screen, undefined until read. */
    shapes: list.data || Object.keys(drafts).length > 0 ? shapes : undefined,
    loadError: list.isError ? list.error : null,
    retryLoad: () => void list.refetch(),
    add: (added: readonly Shape[]) => change(added.map((shape) => ({ id: shape.id, before: null, after: shape }))),
    update: (before: Shape, after: Shape) => change([{ id: before.id, before, after }]),
    remove: (removed: Shape) => change([{ id: removed.id, before: removed, after: null }]),
    undo: () => travel("undo"),
    redo: () => travel("redo"),
    canUndo: history.done.length > 0,
    canRedo: history.undone.length > 0,
    /** Changes the server does not have yet (every script of the batch), whether some are on their way, and those that failed. */
    unsaved,
    saving,
    failures,
    retryAll: queue.saveAll,
  };
}
