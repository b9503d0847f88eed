/** Progress of a batch as one stacked bar: complete, in progress, absent, of the total submissions. */
export function BatchProgressBar({ progress }: { progress: { total: number; complete: number; in_progress: number; absent: number } }) {
  const { total, complete, in_progress: inProgress, absent } = progress;
  const share = (n: number) => (total === 0 ? 0 : (n / total) * 100);
  const label = `${complete} of ${total} complete, ${inProgress} in progress, ${absent} absent`;
  return (
    <div className="batch-progress">
      <div className="batch-progress__track" role="img" aria-label={label}>
        <span className="batch-progress__part batch-progress__part--complete" style={{ width: `${share(complete)}%` }} />
        <span className="batch-progress__part batch-progress__part--active" style={{ width: `${share(inProgress)}%` }} />
      </div>
      <p className="batch-progress__legend">
        <span><strong>{complete}</strong> complete</span>
        <span><strong>{inProgress}</strong> in progress</span>
        <span><strong>{absent}</strong> absent</span>
        <span className="muted">of {total}</span>
      </p>
    </div>
  );
}
