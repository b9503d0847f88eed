"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { useTRPC } from "@/components/trpc/client";

const scanQueryKey = (submissionId: string) => ["markbook", "submission-scan", submissionId] as const;

export const scanPath = (submissionId: string) => `/api/exam/submissions/${submissionId}/scan`;

async function fetchScan(submissionId: string): Promise<ArrayBuffer> {
  // Same mode and credentials as the preload in MarkingScreen (cors, same-origin), so it is reused.
  const response = await fetch(scanPath(submissionId), { credentials: "same-origin" });
  if (!response.ok) {
    const detail = ((await response.json().catch(() => null)) as { detail?: string } | null)?.detail;
    throw new Error(detail ?? `The scan could not be loaded (HTTP ${response.status})`);
  }
  return response.arrayBuffer();
}

/**
 * The scan on screen, and the scripts on either side (see `scriptsAround`): the next one's bytes are
 * fetched ahead (the viewer opens and paints it ahead) and its marks, so moving on is instant; the
 * previous one's bytes only while they are still cached. Blind second marking asks for no marks
 * (`prefetchMarks: false`): the first marks never reach its page.
 */
export function useScans(submissionId: string | null, next: { id: string } | undefined, previous: { id: string } | undefined, { prefetchMarks = true } = {}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const scan = useQuery({ queryKey: scanQueryKey(submissionId ?? ""), queryFn: () => fetchScan(submissionId!), enabled: Boolean(submissionId), staleTime: Infinity });
  const nextScan = useQuery({ queryKey: scanQueryKey(next?.id ?? ""), queryFn: () => fetchScan(next!.id), enabled: Boolean(next), staleTime: Infinity });
  const previousScan = useQuery({ queryKey: scanQueryKey(previous?.id ?? ""), queryFn: () => fetchScan(previous!.id), enabled: false, staleTime: Infinity });
  useEffect(() => {
    if (next && prefetchMarks) void queryClient.prefetchQuery(trpc.exam.marks.forSubmission.queryOptions({ submission_id: next.id }));
  }, [next, queryClient, trpc, prefetchMarks]);
  return { scan, nextBytes: nextScan.data, previousBytes: previousScan.data };
}
