"use client";

import type { RefObject } from "react";
import { Status } from "@/components/ui/Status";
import { pagesPhrase } from "./page-placement";

/**
 * The mark of the current question on a marking screen (first or second marking): typed, or on a
 * question with a rubric the sum of the items applied (read-only, the digits apply items). Its error is
 * its own and goes as soon as the value changes; the hint says how the mark was made and that Enter
 * confirms and moves on.
 */
export function MarkField({
  inputRef,
  value,
  max,
  isRubric,
  disabled,
  error,
  hint,
  onChange,
}: {
  inputRef: RefObject<HTMLInputElement | null>;
  value: string;
  max: number | null;
  isRubric: boolean;
  disabled: boolean;
  error: string | null;
  hint: string;
  onChange: (value: string) => void;
}) {
  return (
    <div className="field marking__mark-field">
      <label className="field__label" htmlFor="mark-input">
        Mark <span className="muted">out of {max ?? "–"}</span>
      </label>
      <input
        id="mark-input"
        ref={inputRef}
        className="input marking__mark-input"
        inputMode="decimal"
        autoComplete="off"
        value={value}
        disabled={disabled}
        // On a question with a rubric the mark is the items' sum: the digits apply items instead.
        readOnly={isRubric}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "mark-error" : "mark-hint"}
        onChange={(event) => {
          const typed = event.currentTarget.value;
          if (!isRubric && /^[0-9]*\.?[0-9]{0,2}$/.test(typed)) onChange(typed);
        }}
      />
      {error ? (
        <p className="field__error" id="mark-error" role="alert">
          {error}
        </p>
      ) : (
        <p className="field__hint" id="mark-hint">
          {hint}Enter confirms and moves on.
        </p>
      )}
    </div>
  );
}

/**
 * Said where the mark of a question is entered when a page it is answered on was not scanned: it
 * cannot be marked from this script; a mark may still be typed by whoever has the paper
 * (docs/decisions.md "Missing pages and reconciling").
 */
export function UnscannedQuestion({ questionLabel, pages }: { questionLabel: string; pages: readonly number[] }) {
  if (pages.length === 0) return null;
  return (
    <Status tone="warning" title={`${pagesPhrase(pages)} ${pages.length === 1 ? "was" : "were"} not scanned`}>
      Question {questionLabel} cannot be marked from this script. If you have the paper, you may still type its mark.
    </Status>
  );
}
