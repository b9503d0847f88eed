"use client";

import Link from "next/link";
import { Status } from "@/components/ui/Status";
import { errorMessage } from "@/lib/trpc/errors";

/** Why the marking screen shows no script. */
export type Unavailable =
  | { reason: "failed"; error: unknown }
  /** The batch's marking is allocated to invited markers, and this teacher is not one of them. */
  | { reason: "shared-elsewhere" }
  /** Another teacher's batch, not shared with this one. */
  | { reason: "another-teachers" }
  | { reason: "no-questions" }
  | { reason: "no-scripts" };

/** What the marking screen says instead of a script, with the way back to the batch. */
export function MarkingUnavailable({ batchId, why }: { batchId: string; why: Unavailable }) {
  const back = <Link href={`/batches/${batchId}`}>Back to the batch</Link>;
  switch (why.reason) {
    case "failed":
      return (
        <Status tone="error" title="The marking screen could not be loaded">
          {errorMessage(why.error)} {back}
        </Status>
      );
    case "shared-elsewhere":
      return (
        <Status tone="info" title="This batch's marking is shared">
          Its owner has allocated the marking to invited markers, and you are not one of them. {back}
        </Status>
      );
    case "another-teachers":
      return (
        <Status tone="info" title="This batch is another teacher's">
          You can read its scripts and results on the batch page; to mark it, ask its owner to invite you as a marker. {back}
        </Status>
      );
    case "no-questions":
      return (
        <Status tone="info" title="This template has no questions to mark">
          {"Add questions to the template first."} {back}
        </Status>
      );
    case "no-scripts":
      return (
        <Status tone="info" title="No scanned scripts yet">
          {"Upload scans on the batch page, then come back to mark them."} {back}
        </Status>
      );
  }
}
