"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { buttonClassName } from "@/components/ui/Button";
import { useTRPC } from "@/components/trpc/client";

/** How often the count is read again, so a request sent while the page is open shows up. */
const REFRESH_MS = 30_000;

/**
 * "Review requests (N open)": the link to a batch's review requests, shown only while the viewer has
 * open ones to answer (exam.reviews.queue gives nobody else any).
 */
export function ReviewRequestsLink({ batchId, size = "medium" }: { batchId: string; size?: "medium" | "small" }) {
  const trpc = useTRPC();
  const open = useQuery({ ...trpc.exam.reviews.queue.queryOptions({ batch_id: batchId, status: "open" }), refetchInterval: REFRESH_MS });
  const count = open.data?.requests.length ?? 0;
  if (count === 0) return null;
  return (
    <Link className={buttonClassName({ variant: "secondary", size })} href={`/batches/${batchId}/reviews`}>
      Review requests ({count} open)
    </Link>
  );
}
