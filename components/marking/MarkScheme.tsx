interface SchemePoint {
  id?: string;
  text?: string;
  marks?: number;
}

/** A question's mark scheme: the answer and the mark points when it has them, else its fields as written. */
export function MarkScheme({ scheme }: { scheme: ({ type: string } & Record<string, unknown>) | null }) {
  if (!scheme) return <p className="muted">No mark scheme for this question.</p>;
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
