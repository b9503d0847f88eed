"use client";

import { useMutation } from "@tanstack/react-query";
import { useEffect } from "react";
import { useTRPC } from "@/components/trpc/client";

/**
 * Shared marking: the pair on screen (a script and a question) is claimed while it is open, and
 * released when the marker moves on. Gives the claim's refusal (a colleague has the pair open), cleared
 * at the next claim.
 */
export function usePairClaim({
  batchId,
  enabled,
  submissionId,
  questionId,
}: {
  batchId: string;
  /** A shared batch the marker may mark here now (not archived, not signed off, in their allocation). */
  enabled: boolean;
  submissionId: string | null;
  questionId: string | undefined;
}) {
  const trpc = useTRPC();
  const { mutate: claimPair, error: claimError, reset: resetClaim } = useMutation(trpc.exam.claims.claim.mutationOptions());
  const { mutate: releasePair } = useMutation(trpc.exam.claims.release.mutationOptions());
  useEffect(() => {
    if (!enabled || !submissionId || !questionId) return;
    const pair = { submission_id: submissionId, question_id: questionId };
    resetClaim();
    claimPair({ batch_id: batchId, body: pair });
    return () => releasePair({ batch_id: batchId, body: pair });
  }, [enabled, submissionId, questionId, batchId, claimPair, releasePair, resetClaim]);
  return claimError;
}
