"use client";

import type { ReactNode } from "react";
import type { RubricItemView } from "@/components/rubric/rubric-items";
import { MarkScheme } from "./MarkScheme";
import { RubricPanel } from "./RubricPanel";
import type { RubricChange } from "./rubric-marks";

/**
 * The current question on a marking screen: its label and marks, specification reference and mark
 * scheme (which scrolls, and gives way when the panel is short), then its rubric, every item on screen
 * (items applied by their keys or a click). `rubricAction` is the owner's "Edit rubric", or "Add a
 * rubric" on a question without one.
 */
export function QuestionDetails({
  question,
  rubricItems,
  applied,
  zeroGiven,
  lastChange,
  disabled,
  onToggle,
  onNoMarks,
  rubricAction,
}: {
  question: { label: string; max_marks: number | null; spec_ref?: string | null; mark_scheme: Parameters<typeof MarkScheme>[0]["scheme"] };
  rubricItems: readonly RubricItemView[];
  applied: readonly string[];
  zeroGiven: boolean;
  lastChange: Pick<RubricChange, "said" | "changed"> | null;
  disabled: boolean;
  onToggle: (index: number) => void;
  onNoMarks: () => void;
  rubricAction?: ReactNode;
}) {
  const isRubric = rubricItems.length > 0;
  return (
    <>
      {/* Focusable so keyboard users can scroll a long mark scheme, which scrolls on its own to keep the mark and the rubric in sight. */}
      <section className={`marking__question${isRubric ? " marking__question--with-rubric" : ""}`} aria-labelledby="question-heading" tabIndex={0}>
        <div className="marking__question-head">
          <h2 id="question-heading">Question {question.label}</h2>
          <span className="marking__max">
            {question.max_marks ?? "–"} mark{question.max_marks === 1 ? "" : "s"}
          </span>
        </div>
        {question.spec_ref ? <p className="muted marking__spec">Specification {question.spec_ref}</p> : null}
        <h3 className="marking__subheading">Mark scheme</h3>
        <MarkScheme scheme={question.mark_scheme} />
        {!isRubric && rubricAction ? (
          <div className="marking__rubric-head">
            <h3 className="marking__subheading">Rubric</h3>
            {rubricAction}
          </div>
        ) : null}
      </section>
      {isRubric ? (
        <RubricPanel
          questionLabel={question.label}
          items={rubricItems}
          applied={applied}
          zeroGiven={zeroGiven}
          lastChange={lastChange}
          disabled={disabled}
          action={rubricAction}
          onToggle={onToggle}
          onNoMarks={onNoMarks}
        />
      ) : null}
    </>
  );
}
