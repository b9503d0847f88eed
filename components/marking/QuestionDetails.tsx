"use client";

import type { ReactNode } from "react";
import type { RubricItemView } from "@/components/rubric/rubric-items";
import { MarkScheme } from "./MarkScheme";
import { RubricPanel } from "./RubricPanel";

/**
 * The current question on a marking screen: its label and marks, specification reference, mark scheme,
 * and its rubric (items applied by their keys or a click). `rubricAction` is the owner's "Edit rubric".
 */
export function QuestionDetails({
  question,
  rubricItems,
  applied,
  disabled,
  onToggle,
  rubricAction,
}: {
  question: { label: string; max_marks: number | null; spec_ref?: string | null; mark_scheme: Parameters<typeof MarkScheme>[0]["scheme"] };
  rubricItems: readonly RubricItemView[];
  applied: readonly string[];
  disabled: boolean;
  onToggle: (index: number) => void;
  rubricAction?: ReactNode;
}) {
  const isRubric = rubricItems.length > 0;
  return (
    // Focusable so keyboard users can scroll a long mark scheme, which scrolls on its own to keep the mark in sight.
    <section className="marking__question" aria-labelledby="question-heading" tabIndex={0}>
      <div className="marking__question-head">
        <h2 id="question-heading">Question {question.label}</h2>
        <span className="marking__max">
          {question.max_marks ?? "–"} mark{question.max_marks === 1 ? "" : "s"}
        </span>
      </div>
      {question.spec_ref ? <p className="muted marking__spec">Specification {question.spec_ref}</p> : null}
      <h3 className="marking__subheading">Mark scheme</h3>
      <MarkScheme scheme={question.mark_scheme} />
      {isRubric || rubricAction ? (
        <div className="marking__rubric-head">
          <h3 className="marking__subheading">
            Rubric{isRubric ? <span className="muted"> · keys {rubricItems.length >= 10 ? "1–9, 0" : rubricItems.length === 1 ? "1" : `1–${rubricItems.length}`}</span> : null}
          </h3>
          {rubricAction}
        </div>
      ) : null}
      {isRubric ? <RubricPanel questionLabel={question.label} items={rubricItems} applied={applied} disabled={disabled} onToggle={onToggle} /> : null}
    </section>
  );
}
