"use client";

import { useEffect, useId, useRef } from "react";
import { Button } from "@/components/ui/Button";
import { SelectField, TextField } from "@/components/ui/Field";
import { RubricEditor } from "@/components/rubric/RubricEditor";
import type { RubricItemView } from "@/components/rubric/rubric-items";
import { MAX_MARKS_MAX, MAX_MARKS_MIN, parseMaxMarks } from "@/lib/rules/max-marks";
import {
  type EditorQuestion,
  allowMultiple,
  childrenOf,
  chooseCorrect,
  isMultipleChoice,
  markSchemeText,
  maxMarksEdit,
  multipleChoiceScheme,
  structuredScheme,
  totalMarks,
  typedMaxMarks,
  withMarkSchemeText,
} from "./editor-state";

const answerTypes = [
  { value: "", label: "Not set" },
  { value: "numeric", label: "Numeric" },
  { value: "short_text", label: "Short text" },
  { value: "extended", label: "Extended writing" },
  { value: "multiple_choice", label: "Multiple choice" },
  { value: "working", label: "Working / calculation" },
  { value: "diagram", label: "Diagram or graph" },
];

interface QuestionInspectorProps {
  question: EditorQuestion;
  questions: EditorQuestion[];
  readOnly: boolean;
  onChange: (patch: Partial<EditorQuestion>) => void;
  /** A new answer type: the scheme follows it (Multiple choice has its own), and the areas' boxes too. */
  onAnswerType: (answerType: string | null) => void;
  /** The labels of the question's tick boxes (Multiple choice), across its areas. */
  boxLabels: readonly string[];
  onDelete: () => void;
  /** Put the focus in the label field (a question just added), then report it done. */
  focusLabel?: boolean;
  onLabelFocused?: () => void;
  /** The rubric under the mark scheme: the template's items, saved at once, apart from the canvas. */
  rubric: {
    templateId: string;
    items: readonly RubricItemView[];
    /** The question is a part on the server (a question only in the unsaved draft has no items yet). */
    savedLeaf: boolean;
  };
}

/** The selected question's fields. */
export function QuestionInspector({ question, questions, readOnly, onChange, onAnswerType, boxLabels, onDelete, focusLabel = false, onLabelFocused, rubric }: QuestionInspectorProps) {
  const schemeId = useId();
  const labelField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (!focusLabel) return;
    labelField.current?.focus();
    labelField.current?.select();
    onLabelFocused?.();
  }, [focusLabel, onLabelFocused]);
  const parts = childrenOf(questions, question.id);
  const parent = questions.find((q) => q.id === question.parent_id);
  const multipleChoice = isMultipleChoice(question) && !question.is_container;
  // A multiple-choice scheme is edited below as boxes, not listed as fields.
  const structured = question.mark_scheme?.type === "multiple_choice" ? null : structuredScheme(question.mark_scheme);
  const typedMarks = parseMaxMarks(typedMaxMarks(question));
  const options = answerTypes.some((t) => t.value === (question.answer_type ?? ""))
    ? answerTypes
    : [...answerTypes, { value: question.answer_type!, label: question.answer_type! }];
  return (
    <section className="inspector" aria-labelledby="question-inspector-heading">
      <h2 id="question-inspector-heading">Question {question.label}</h2>
      <div className="form-row">
        <TextField
          ref={labelField}
          label="Label"
          // A part's label is suggested from its parent's (3 → 3a, 3b) and follows it until it is changed here.
          hint={parent ? `Suggested from ${parent.label}` : undefined}
          value={question.label}
          maxLength={100}
          disabled={readOnly}
          fieldClassName="field--narrow"
          onChange={(e) => onChange({ label: e.currentTarget.value })}
        />
        {question.is_container ? (
          <p className="inspector__total">
            Total of parts: <strong>{totalMarks(parts)}</strong>
          </p>
        ) : (
          <TextField
            label="Max marks"
            // Empty for a new question: it is typed, never guessed, and needed before the template is Ready.
            hint={`${MAX_MARKS_MIN} to ${MAX_MARKS_MAX}; needed for Ready`}
            error={"error" in typedMarks ? typedMarks.error : undefined}
            inputMode="decimal"
            autoComplete="off"
            // Not narrow: the rule and an error need room beside the label (or below it on a narrow panel).
            disabled={readOnly}
            value={typedMaxMarks(question)}
            onChange={(e) => onChange(maxMarksEdit(e.currentTarget.value))}
          />
        )}
      </div>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={question.is_container}
          disabled={readOnly || parts.length > 0}
          onChange={(e) => onChange({ is_container: e.currentTarget.checked, ...(e.currentTarget.checked && { max_marks: null, max_marks_input: undefined }) })}
        />
        Has parts (a container; marks are given to its parts)
      </label>
      {question.is_container ? null : (
        <SelectField label="Answer type" value={question.answer_type ?? ""} options={options} disabled={readOnly} onChange={(e) => onAnswerType(e.currentTarget.value || null)} />
      )}
      <TextField
        label="Specification reference"
        hint="The specification point it assesses, e.g. 8300.N1; links it in the exam graph."
        value={question.spec_ref ?? ""}
        maxLength={200}
        mono
        disabled={readOnly}
        onChange={(e) => onChange({ spec_ref: e.currentTarget.value.trim() ? e.currentTarget.value : null })}
      />
      {multipleChoice ? <MultipleChoiceScheme question={question} boxLabels={boxLabels} readOnly={readOnly} onChange={onChange} /> : null}
      {structured ? (
        // A scheme that came with the paper: read here, as markers see it; notes are added below.
        <section className="inspector__scheme" aria-label={`Mark scheme of question ${question.label}`}>
          <h3 className="field__label">Mark scheme</h3>
          <div className="mark-scheme">
            {structured.answer ? (
              <p>
                <span className="muted">Answer </span>
                <strong>{structured.answer}</strong>
              </p>
            ) : null}
            {structured.points.length ? (
              <ul className="mark-scheme__points">
                {structured.points.map((point, index) => (
                  <li key={index}>
                    <span>{point.text}</span>
                    {point.marks === null ? null : <span className="mark-scheme__marks">{point.marks}</span>}
                  </li>
                ))}
              </ul>
            ) : null}
            {structured.other.map(([key, value]) => (
              <p key={key}>
                <span className="muted">{key} </span>
                {value}
              </p>
            ))}
          </div>
        </section>
      ) : null}
      <div className="field">
        <label className="field__label" htmlFor={schemeId}>
          {structured || multipleChoice ? "Mark scheme notes" : "Mark scheme"}
        </label>
        <textarea
          id={schemeId}
          className="input textarea"
          rows={4}
          disabled={readOnly}
          placeholder={multipleChoice ? "Notes for markers, e.g. a crossed-out tick is no answer" : structured ? "Notes for markers, e.g. accept 140.0" : "e.g. M1 for a correct method; A1 for 42"}
          value={markSchemeText(question.mark_scheme)}
          onChange={(e) => onChange({ mark_scheme: withMarkSchemeText(question.mark_scheme, e.currentTarget.value) })}
        />
      </div>
      {question.is_container ? null : rubric.savedLeaf ? (
        <RubricEditor templateId={rubric.templateId} questionId={question.id} questionLabel={question.label} items={rubric.items} canEdit={!readOnly} maxMarks={question.max_marks} />
      ) : (
        <section className="rubric" aria-labelledby={`${schemeId}-rubric`}>
          <h3 id={`${schemeId}-rubric`} className="rubric__title">
            Rubric
          </h3>
          <p className="rubric__hint">Save the template to add rubric items to this question.</p>
        </section>
      )}
      <div className="inspector__footer">
        <Button variant="danger-quiet" size="small" disabled={readOnly} onClick={onDelete}>
          Delete question {question.label}
          {parts.length ? " and its parts" : ""}
        </Button>
      </div>
    </section>
  );
}

/** The multiple-choice mark scheme: which box or boxes are right, and whether more than one tick is allowed. */
function MultipleChoiceScheme({
  question,
  boxLabels,
  readOnly,
  onChange,
}: {
  question: EditorQuestion;
  boxLabels: readonly string[];
  readOnly: boolean;
  onChange: (patch: Partial<EditorQuestion>) => void;
}) {
  const scheme = multipleChoiceScheme(question.mark_scheme);
  return (
    <fieldset className="tick-boxes" disabled={readOnly}>
      <legend className="field__label">Right answer{scheme.allow_multiple ? "s" : ""}</legend>
      {boxLabels.length === 0 ? (
        <p className="field__hint">Select the question&rsquo;s answer area on the paper, then find or draw its tick boxes.</p>
      ) : (
        <div className="tick-boxes__choices">
          {boxLabels.map((label) => (
            <label key={label} className="checkbox">
              <input
                type="checkbox"
                checked={scheme.correct.includes(label)}
                onChange={(e) => onChange({ mark_scheme: chooseCorrect(question.mark_scheme, label, e.currentTarget.checked) })}
              />
              {label}
            </label>
          ))}
        </div>
      )}
      <label className="checkbox">
        <input type="checkbox" checked={scheme.allow_multiple} onChange={(e) => onChange({ mark_scheme: allowMultiple(question.mark_scheme, e.currentTarget.checked) })} />
        More than one tick allowed
      </label>
      <p className="field__hint">
        The marks are given when the ticks are exactly the right box{scheme.allow_multiple ? "es" : ""}; anything else is 0.
      </p>
    </fieldset>
  );
}
