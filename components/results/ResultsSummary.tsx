import { submissionStateLabels, submissionStates } from "@/lib/rules/submission-state";
import { formatMarks, formatPercent, type ResultsSummary as Summary } from "./results-stats";

/** The states counted beside "Marked", in the order of every screen; those nobody is in are left out. */
const otherStates = submissionStates.filter((state) => state !== "marked");

/** The line a head of department reads first: how far marking is, and how the marked scripts did. */
export function ResultsSummary({ summary }: { summary: Summary }) {
  const { counts } = summary;
  const basis = `of ${counts.marked} marked script${counts.marked === 1 ? "" : "s"}`;
  return (
    <section aria-labelledby="results-summary-heading">
      <h2 id="results-summary-heading" className="visually-hidden">
        Summary
      </h2>
      <dl className="results-summary">
        <div className="results-summary__item results-summary__item--marked">
          <dt>Marked</dt>
          <dd>
            <span className="results-summary__value">{counts.marked}</span> <span className="results-summary__sub">of {counts.submissions}</span>
          </dd>
        </div>
        {otherStates.map((state) =>
          counts[state] > 0 ? (
            <div key={state} className="results-summary__item">
              <dt>{submissionStateLabels[state]}</dt>
              <dd>
                <span className="results-summary__value">{counts[state]}</span>
              </dd>
            </div>
          ) : null,
        )}
        <div className="results-summary__item">
          <dt>Mean</dt>
          <dd>
            <span className="results-summary__value">{summary.meanPercent === null ? "–" : formatPercent(summary.meanPercent, true)}</span>{" "}
            <span className="results-summary__sub">{basis}</span>
          </dd>
        </div>
        <div className="results-summary__item">
          <dt>Median</dt>
          <dd>
            <span className="results-summary__value">{summary.medianPercent === null ? "–" : formatPercent(summary.medianPercent, true)}</span>{" "}
            <span className="results-summary__sub">{basis}</span>
          </dd>
        </div>
        <div className="results-summary__item">
          <dt>Total mark</dt>
          <dd>
            <span className="results-summary__value">{formatMarks(summary.maxTotal)}</span>
          </dd>
        </div>
      </dl>
    </section>
  );
}
