"use client";

export type StripState = "draft" | "done" | "partial" | "todo";

/**
 * The row of a script's questions above the question: each with its state (confirmed, begun, unsaved,
 * to do) and whether a page it is answered on was not scanned; a click opens it.
 */
export function QuestionStrip({
  questions,
  currentIndex,
  stateOf,
  onGo,
}: {
  questions: readonly { id: string; label: string }[];
  currentIndex: number;
  stateOf: (questionId: string) => { state: StripState; marks?: number | null; unscanned: boolean };
  onGo: (index: number) => void;
}) {
  return (
    <nav aria-label="Questions" className="question-strip">
      {questions.map((q, index) => {
        const { state, marks, unscanned } = stateOf(q.id);
        return (
          <button
            key={q.id}
            type="button"
            className={`question-strip__item question-strip__item--${state}${unscanned ? " question-strip__item--unscanned" : ""}`}
            aria-current={index === currentIndex ? "step" : undefined}
            aria-label={`Question ${q.label}${state === "done" ? `, ${marks} marks, confirmed` : state === "draft" ? ", unsaved" : ""}${unscanned ? ", page not scanned" : ""}`}
            onClick={() => onGo(index)}
          >
            {q.label}
          </button>
        );
      })}
    </nav>
  );
}
