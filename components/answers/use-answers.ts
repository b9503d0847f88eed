"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc/client";

/** While scripts are still being read the answers are read again this often, so marks from the ticks appear by themselves. */
const READING_REFRESH_MS = 2000;

/**
 * The answers of a batch (exam.answers.forBatch), read again while pages are being read, and the
 * marker's decisions on them; each decision reads the answers, the queue and the marks again.
 */
export function useBatchAnswers(batchId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const answers = useQuery({
    ...trpc.exam.answers.forBatch.queryOptions({ batch_id: batchId }),
    refetchInterval: (query) => ((query.state.data?.reading ?? 0) > 0 ? READING_REFRESH_MS : false),
  });
  const refresh = async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.exam.answers.forBatch.queryKey({ batch_id: batchId }) }),
      queryClient.invalidateQueries({ queryKey: trpc.exam.batches.queue.queryKey({ batch_id: batchId }) }),
      queryClient.invalidateQueries({ queryKey: trpc.exam.marks.forSubmission.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.exam.answers.forSubmission.pathKey() }),
    ]);
  };
  const setAnswer = useMutation(trpc.exam.answers.setAnswer.mutationOptions({ onSettled: refresh }));
  const zeroBlanks = useMutation(trpc.exam.answers.zeroBlanks.mutationOptions({ onSettled: refresh }));
  const setAutoZeroBlanks = useMutation(trpc.exam.answers.setAutoZeroBlanks.mutationOptions({ onSettled: refresh }));
  return { answers, setAnswer, zeroBlanks, setAutoZeroBlanks };
}

/** The batch around the answers: its title, owner, whether it is archived or signed off, and what the viewer may do. */
export function useAnswersBatch(batchId: string) {
  const trpc = useTRPC();
  const queue = useQuery(trpc.exam.batches.queue.queryOptions({ batch_id: batchId }));
  const access = useQuery(trpc.exam.markers.myWork.queryOptions({ batch_id: batchId }));
  const moderation = useQuery(trpc.exam.moderation.state.queryOptions({ batch_id: batchId }));
  const locked = queue.data?.batch.status === "archived" || Boolean(moderation.data?.sign_off);
  // Until the viewer's part is known, offer no writes; a marker with part of the batch decides on the server's word.
  const mayMark = (access.data?.marks ?? "nothing") !== "nothing" && !locked;
  return { queue, mayMark, locked };
}
