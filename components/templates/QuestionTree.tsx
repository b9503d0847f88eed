"use client";

import { useState, type KeyboardEvent } from "react";
import { Button } from "@/components/ui/Button";
import { type Confidence, type EditorQuestion, canMove, childrenOf, depthOf } from "./editor-state";

interface QuestionTreeProps {
  questions: EditorQuestion[];
  areaCounts: Map<string, number>;
  selectedId: string | null;
  readOnly: boolean;
  onSelect: (id: string) => void;
  onAdd: () => void;
  onAddPart: (parentId: string) => void;
  onMove: (id: string, direction: -1 | 1) => void;
  onDrop: (id: string, targetId: string) => void;
  /** Questions read from the paper and not accepted yet, with how sure the reading is: badged "proposed" or "check". */
  proposed?: Readonly<Record<string, Confidence>>;
}

const marksText = (q: EditorQuestion, questions: EditorQuestion[]) => {
  if (q.is_container) {
    const parts = childrenOf(questions, q.id).length;
    return `${parts} part${parts === 1 ? "" : "s"}`;
  }
  return q.max_marks === null ? "max needed" : `${q.max_marks} mark${q.max_marks === 1 ? "" : "s"}`;
};

/**
 * The questions in paper order, parts indented under their container. Select one to edit it and to
 * draw its areas; reorder with the arrow buttons or Alt+↑/↓ on the selected question.
 */
export function QuestionTree({ questions, areaCounts, selectedId, readOnly, onSelect, onAdd, onAddPart, onMove, onDrop, proposed = {} }: QuestionTreeProps) {
  const [dragged, setDragged] = useState<string | null>(null);
  const [dropTarget, setDropTarget] = useState<string | null>(null);
  const parentOf = (id: string | null) => questions.find((q) => q.id === id)?.parent_id;
  function onKey(event: KeyboardEvent, question: EditorQuestion) {
    if (readOnly || !event.altKey || (event.key !== "ArrowUp" && event.key !== "ArrowDown")) return;
    event.preventDefault();
    const direction = event.key === "ArrowUp" ? -1 : 1;
    if (canMove(questions, question.id, direction)) onMove(question.id, direction);
  }

  return (
    <section className="question-tree" aria-labelledby="question-tree-heading">
      <header className="question-tree__header">
        <h2 id="question-tree-heading">Questions</h2>
        <Button size="small" onClick={onAdd} disabled={readOnly}>
          Add question
        </Button>
      </header>
      {questions.length === 0 ? (
        <p className="question-tree__empty">
          No questions yet. Choose <strong>Add question</strong>, or drag a box on the paper: each box you draw becomes a new question.
        </p>
      ) : (
        <ul className="question-tree__list">
          {questions.map((question) => {
            const selected = question.id === selectedId;
            const depth = depthOf(questions, question);
            const areas = areaCounts.get(question.id) ?? 0;
            const guess = proposed[question.id];
            return (
              <li
                key={question.id}
                className={`question-row${selected ? " question-row--selected" : ""}${dropTarget === question.id ? " question-row--drop" : ""}${guess ? ` question-row--proposed question-row--${guess}` : ""}`}
                style={{ paddingInlineStart: `calc(${depth} * var(--space-5) + var(--space-2))` }}
                data-question-id={question.id}
                // Drag to reorder among siblings (the buttons and Alt+↑/↓ do the same from the keyboard).
                draggable={!readOnly}
                onDragStart={(event) => {
                  event.dataTransfer.effectAllowed = "move";
                  event.dataTransfer.setData("text/plain", question.label);
                  setDragged(question.id);
                }}
                onDragOver={(event) => {
                  if (!dragged || dragged === question.id || parentOf(dragged) !== question.parent_id) return;
                  event.preventDefault();
                  setDropTarget(question.id);
                }}
                onDragLeave={() => setDropTarget((current) => (current === question.id ? null : current))}
                onDrop={(event) => {
                  event.preventDefault();
                  if (dragged) onDrop(dragged, question.id);
                  setDragged(null);
                  setDropTarget(null);
                }}
                onDragEnd={() => {
                  setDragged(null);
                  setDropTarget(null);
                }}
              >
                <button
                  type="button"
                  className="question-row__select"
                  aria-pressed={selected}
                  aria-keyshortcuts="Alt+ArrowUp Alt+ArrowDown"
                  onClick={() => onSelect(question.id)}
                  onKeyDown={(event) => onKey(event, question)}
                >
                  <span className="question-row__label">{question.label}</span>
                  {guess ? (
                    <span className={`proposed-badge proposed-badge--${guess}`} title={guess === "check" ? "Read from the paper: check it, then accept it" : "Read from the paper: accept it when it is right"}>
                      {guess === "check" ? "check" : "proposed"}
                    </span>
                  ) : null}
                  <span className="question-row__meta">
                    {marksText(question, questions)}
                    {question.is_container ? "" : ` · ${areas} area${areas === 1 ? "" : "s"}`}
                  </span>
                </button>
                <span className="question-row__actions">
                  <Button variant="secondary" size="small" aria-label={`Add a part to question ${question.label}`} disabled={readOnly || depth >= 2} onClick={() => onAddPart(question.id)}>
                    + Part
                  </Button>
                  <Button variant="secondary" size="small" aria-label={`Move question ${question.label} up`} disabled={readOnly || !canMove(questions, question.id, -1)} onClick={() => onMove(question.id, -1)}>
                    ↑
                  </Button>
                  <Button variant="secondary" size="small" aria-label={`Move question ${question.label} down`} disabled={readOnly || !canMove(questions, question.id, 1)} onClick={() => onMove(question.id, 1)}>
                    ↓
                  </Button>
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
