import { Badge } from "@/components/ui/Badge";
import { type SubmissionFacts, type SubmissionState, submissionState, submissionStateLabel } from "@/lib/rules/submission-state";

const tones: Record<SubmissionState, "success" | "neutral" | "danger"> = {
  no_scan: "neutral",
  absent: "neutral",
  needs_student: "danger",
  not_marked: "neutral",
  being_marked: "neutral",
  marked: "success",
};

/** A submission's state as every screen words it (lib/rules/submission-state.ts). */
export function SubmissionStateBadge({ submission, progress }: { submission: SubmissionFacts; progress?: { marked: number; of: number } }) {
  const state = submissionState(submission);
  return (
    <Badge tone={tones[state]}>
      <span data-state={state}>{submissionStateLabel(state, progress)}</span>
    </Badge>
  );
}
