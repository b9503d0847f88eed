"use client";

import { useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useMemo } from "react";
import { useTRPC } from "@/components/trpc/client";
import type { AppRouter } from "@/server/trpc/root";
import { markableQuestions, markableScripts } from "./marking-order";

type RouterOutputs = inferRouterOutputs<AppRouter>;
export type MarkingQueue = RouterOutputs["exam"]["batches"]["queue"];
export type MarkingTemplate = RouterOutputs["exam"]["templates"]["get"];

/**
 * What a marking screen marks: the batch's queue and its paper, whether the batch is archived or signed
 * off, and the scripts and questions this teacher marks. Shared marking: a marker's screen holds their
 * allocation only (its scripts, its questions); a colleague who is neither the owner, a marker nor a
 * department head marks nothing (batch-gate.ts).
 */
export function useMarkingBatch({
  batchId,
  initialQueue,
  initialTemplate,
}: {
  batchId: string;
  initialQueue: MarkingQueue | undefined;
  initialTemplate: MarkingTemplate | undefined;
}) {
  const trpc = useTRPC();
  const queue = useQuery({ ...trpc.exam.batches.queue.queryOptions({ batch_id: batchId }), refetchInterval: 10_000, initialData: initialQueue });
  const templateId = queue.data?.batch.template_id;
  const template = useQuery({
    ...trpc.exam.templates.get.queryOptions({ template_id: templateId ?? "" }),
    enabled: Boolean(templateId),
    staleTime: 5 * 60_000,
    initialData: initialTemplate?.id === templateId ? initialTemplate : undefined,
  });

  const myWork = useQuery({
    ...trpc.exam.markers.myWork.queryOptions({ batch_id: batchId }),
    enabled: Boolean(queue.data),
    refetchInterval: 10_000,
  });
  // A signed-off batch is read-only until a department head reopens it.
  const moderation = useQuery({ ...trpc.exam.moderation.state.queryOptions({ batch_id: batchId }), enabled: Boolean(queue.data) });
  const signedOff = Boolean(moderation.data?.sign_off);
  const archived = queue.data?.batch.status === "archived";
  const allocation = myWork.data && myWork.data.marks !== "everything" ? myWork.data : undefined;
  const scripts = useMemo(() => {
    const all = markableScripts(queue.data?.submissions ?? []);
    if (!allocation) return all;
    const mine = new Set(allocation.scripts.map((entry) => entry.submission_id));
    return all.filter((entry) => mine.has(entry.id));
  }, [queue.data, allocation]);
  const questions = useMemo(() => {
    const all = markableQuestions(template.data?.questions ?? []);
    if (!allocation) return all;
    const mine = new Set(allocation.scripts.flatMap((entry) => entry.question_ids));
    return all.filter((entry) => mine.has(entry.id));
  }, [template.data, allocation]);

  return { queue, template, templateId, myWork: myWork.data, allocation, signedOff, archived, scripts, questions };
}
