"use client";

import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { type QuestionAnswers, answerInWords, isRightAnswer, marksInWords, marksOfAnswer, toggleLabel } from "./answers-state";

/**
 * The boxes of a tick question as toggle buttons, to say which were ticked: a correction of a group or
 * of one script. "None ticked" clears them; Apply sends the answer (its marks by the scheme shown).
 */
export function BoxChooser({
  question,
  initial,
  applyLabel,
  busy,
  onApply,
  onCancel,
}: {
  question: QuestionAnswers;
  initial: readonly string[] | null;
  applyLabel: string;
  busy: boolean;
  onApply: (answer: string[]) => void;
  onCancel: () => void;
}) {
  const [answer, setAnswer] = useState<string[]>(() => [...(initial ?? [])]);
  return (
    <div className="box-chooser" role="group" aria-label={`Which boxes of question ${question.label} are ticked`}>
      <BoxButtons question={question} answer={answer} onToggle={(label) => setAnswer((now) => toggleLabel(now, label, question.box_labels))} onNone={() => setAnswer([])} />
      <p className="box-chooser__outcome" aria-live="polite">
        {answerInWords(answer)}: {marksInWords(marksOfAnswer(question, answer))}
        {isRightAnswer(question, answer) ? " (the right answer)" : ""}
      </p>
      <div className="box-chooser__actions">
        <Button size="small" disabled={busy} onClick={() => onApply(answer)}>
          {applyLabel}
        </Button>
        <Button variant="secondary" size="small" onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </div>
  );
}

/** One toggle button per box label (pressed: ticked), and "None ticked". Large on the check screen. */
export function BoxButtons({
  question,
  answer,
  large = false,
  keys = false,
  onToggle,
  onNone,
}: {
  question: QuestionAnswers;
  answer: readonly string[] | null;
  large?: boolean;
  /** Shows and names each button's key (the check screen). */
  keys?: boolean;
  onToggle: (label: string) => void;
  onNone: () => void;
}) {
  const size = large ? undefined : "small";
  return (
    <div className={`box-buttons${large ? " box-buttons--large" : ""}`}>
      {question.box_labels.map((label) => {
        const pressed = answer?.includes(label) ?? false;
        return (
          <Button
            key={label}
            variant={pressed ? "primary" : "secondary"}
            size={size}
            aria-pressed={pressed}
            aria-keyshortcuts={keys ? label : undefined}
            aria-label={`Box ${label}`}
            onClick={() => onToggle(label)}
          >
            {label}
          </Button>
        );
      })}
      <Button variant={answer !== null && answer.length === 0 ? "primary" : "secondary"} size={size} aria-pressed={answer !== null && answer.length === 0} aria-keyshortcuts={keys ? "0" : undefined} onClick={onNone}>
        None ticked{keys ? <kbd aria-hidden="true">0</kbd> : null}
      </Button>
    </div>
  );
}
