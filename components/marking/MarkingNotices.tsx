"use client";

import Link from "next/link";
import { Button } from "@/components/ui/Button";
import { Status } from "@/components/ui/Status";
import { errorMessage } from "@/lib/trpc/errors";
import type { MarkingMode } from "./marking-order";

/** Said above the mark when the question on screen is another marker's on this script. */
export function NotInAllocationNotice({ questionLabel }: { questionLabel: string }) {
  return <Status tone="info">Question {questionLabel} of this script is not in your allocation: another marker marks it. Press Enter to move on.</Status>;
}

/**
 * Said under the mark: why it cannot be changed (the batch archived or signed off), that a colleague has
 * the pair open, how many other marks wait to be saved (with Retry all), and that the last script has
 * been through.
 */
export function MarkingNotices({
  batchId,
  archived,
  signedOff,
  claimError,
  unsavedElsewhere,
  onRetryAll,
  finished,
  mode,
}: {
  batchId: string;
  archived: boolean;
  signedOff: boolean;
  /** The claim of the pair on screen was refused. */
  claimError: unknown;
  /** Drafts of other questions or scripts not saved yet. */
  unsavedElsewhere: number;
  onRetryAll: () => void;
  finished: boolean;
  mode: MarkingMode;
}) {
  return (
    <>
      {archived ? <Status tone="warning">This batch is archived: marks can be read but not changed.</Status> : null}
      {signedOff && !archived ? <Status tone="warning">This batch is signed off: marks can be read but not changed until a department head reopens it.</Status> : null}
      {claimError ? (
        <Status tone="warning" title="Not yours to mark right now">
          {errorMessage(claimError)}. Move on to another script or question; it is free again when they do.
        </Status>
      ) : null}
      {unsavedElsewhere > 0 ? (
        <Status tone="warning" title={`${unsavedElsewhere} other mark${unsavedElsewhere === 1 ? "" : "s"} not saved yet`}>
          They are kept in this browser tab and saved as soon as the server answers.
          <Button variant="secondary" size="small" onClick={onRetryAll}>
            Retry all
          </Button>
        </Status>
      ) : null}
      {finished ? (
        <Status tone="success" title="That was the last script">
          {mode === "student" ? "Every scanned script has been through." : "Every question of every scanned script has been through."} <Link href={`/batches/${batchId}`}>Back to the batch</Link>
        </Status>
      ) : null}
    </>
  );
}
