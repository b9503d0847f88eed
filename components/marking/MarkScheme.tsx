interface SchemePoint {
  id?: string;
  text?: string;
  marks?: number;
}

/** A question's mark scheme: the answer and the mark points when it has them, else its fields as written. */
export function MarkScheme({ scheme }: { scheme: ({ type: string } & Record<string, unknown>) | null }) {
  if (!scheme) return <p className="muted">No mark scheme for this question.</p>;
  if (scheme.type === "multiple_choice") return <MultipleChoiceScheme scheme={scheme} />;
  const points = Array.isArray(scheme.points) ? (scheme.points as SchemePoint[]) : [];
  const answer = typeof scheme.answer === "string" || typeof scheme.answer === "number" ? String(scheme.answer) : null;
  const rest = Object.entries(scheme).filter(([key]) => !["type", "points", "answer", "total"].includes(key));
  return (
    <div className="mark-scheme">
      {answer ? (
        <p>
          <span className="muted">Answer </span>
          <strong>{answer}</strong>
        </p>
      ) : null}
      {points.length > 0 ? (
        <ul className="mark-scheme__points">
          {points.map((point, index) => (
            <li key={point.id ?? index}>
              <span>{point.text ?? point.id}</span>
              {point.marks !== undefined ? <span className="mark-scheme__marks">{point.marks}</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {rest.map(([key, value]) =>
        // A scheme written in the template editor is its text alone ({type: "text", text}): no field name before it.
        key === "text" && typeof value === "string" ? (
          <p key={key} className="mark-scheme__text">
            {value}
          </p>
        ) : (
          <p key={key}>
            <span className="muted">{key} </span>
            {typeof value === "string" ? value : JSON.stringify(value)}
          </p>
        ),
      )}
      {!answer && points.length === 0 && rest.length === 0 ? <p className="muted">Mark scheme type: {scheme.type}</p> : null}
    </div>
  );
}

/** A tick-box question's scheme in words: "Right answer: B (one tick)", and its notes for markers. */
function MultipleChoiceScheme({ scheme }: { scheme: Record<string, unknown> }) {
  const correct = Array.isArray(scheme.correct) ? scheme.correct.filter((label): label is string => typeof label === "string") : [];
  const right = correct.length === 0 ? "not chosen yet" : correct.length === 1 ? correct[0] : `${correct.slice(0, -1).join(", ")} and ${correct.at(-1)}`;
  return (
    <div className="mark-scheme">
      <p>
        <span className="muted">Right answer </span>
        <strong>{right}</strong> <span className="muted">({scheme.allow_multiple === true ? "more than one tick allowed" : "one tick"}; all or nothing)</span>
      </p>
      {typeof scheme.text === "string" && scheme.text ? <p className="mark-scheme__text">{scheme.text}</p> : null}
    </div>
  );
}
