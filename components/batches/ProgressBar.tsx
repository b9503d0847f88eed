import { type SubmissionStateCounts, submissionStateLabels, submissionStates } from "@/lib/rules/submission-state";

/**
 * Progress of a batch as one stacked bar (marked, then scans still to mark) and a legend that counts
 * each state in the words of every other screen; states nobody is in are left out, but for "marked".
 */
export function BatchProgressBar({ states }: { states: SubmissionStateCounts }) {
  const total = submissionStates.reduce((sum, state) => sum + states[state], 0);
  const toMark = states.not_marked + states.being_marked + states.needs_student;
  const share = (n: number) => (total === 0 ? 0 : (n / total) * 100);
  const shown = submissionStates.filter((state) => state === "marked" || states[state] > 0);
  const words = (state: (typeof submissionStates)[number]) => submissionStateLabels[state].toLowerCase();
  const label = `${states.marked} of ${total} marked${shown
    .filter((state) => state !== "marked")
    .map((state) => `, ${states[state]} ${words(state)}`)
    .join("")}`;
  return (
    <div className="batch-progress">
      <div className="batch-progress__track" role="img" aria-label={label}>
        <span className="batch-progress__part batch-progress__part--complete" style={{ width: `${share(states.marked)}%` }} />
        <span className="batch-progress__part batch-progress__part--active" style={{ width: `${share(toMark)}%` }} />
      </div>
      <p className="batch-progress__legend">
        {shown.map((state) => (
          <span key={state}>
            <strong>{states[state]}</strong> {words(state)}
          </span>
        ))}
        <span className="muted">of {total}</span>
      </p>
    </div>
  );
}
