"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Button } from "@/components/ui/Button";
import { Status } from "@/components/ui/Status";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";
import type { TemplateGraphStatus } from "@/server/graph/projection-status";

/** While a projection waits or runs, its state is looked at again this often. */
const BUSY_POLL_MS = 3_000;

/** Running, or due to run within a minute: worth looking at again soon. A retry an hour away is not. */
function isAboutToChange(status: TemplateGraphStatus | undefined): boolean {
  if (status?.state === "running") return true;
  if (status?.state !== "queued") return false;
  const next = status.problem?.next_attempt_at;
  return !next || Date.parse(next) - Date.now() < 60_000;
}

const timeOfDay = (iso: string) => new Date(iso).toLocaleString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit", day: "numeric", month: "short" });

/**
 * The owner's notice when the curriculum graph could not be updated after a save: why, when Markbook
 * tries again, and Retry now. Nothing at all while the projection is fine or under way.
 */
export function GraphProjectionNotice({ templateId }: { templateId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const statusKey = trpc.exam.templates.graphStatus.queryKey({ template_id: templateId });
  const status = useQuery({
    ...trpc.exam.templates.graphStatus.queryOptions({ template_id: templateId }),
    refetchInterval: (query) => (isAboutToChange(query.state.data) ? BUSY_POLL_MS : false),
  });
  const retry = useMutation(
    trpc.exam.templates.retryGraph.mutationOptions({
      onSuccess: (fresh) => queryClient.setQueryData(statusKey, fresh),
    }),
  );
  const problem = status.data?.problem;
  if (!problem) return null;
  return (
    <Status
      tone="warning"
      role="status"
      action={
        <Button variant="secondary" size="small" loading={retry.isPending} loadingLabel="Retrying…" onClick={() => retry.mutate({ template_id: templateId })}>
          Retry now
        </Button>
      }
    >
      <span data-testid="graph-projection-problem">
        The curriculum graph could not be updated: {problem.reason.replace(/\.$/, "")}.{" "}
        {problem.next_attempt_at
          ? `Markbook retries automatically; next try at ${timeOfDay(problem.next_attempt_at)}.`
          : "Markbook has stopped retrying on its own."}
      </span>
      {retry.isError ? <span> {errorMessage(retry.error)}</span> : null}
    </Status>
  );
}
