"use client";

import { type RefObject, useRef } from "react";
import { CommentBank } from "./CommentBank";
import { DictationButton } from "./DictationButton";

/**
 * The optional comment of the mark on screen: typed, dictated (added to what was typed before the
 * dictation started) or taken from the question's comment bank.
 */
export function CommentField({
  inputRef,
  value,
  disabled,
  draftKey,
  dictationPrompt,
  questionId,
  questionLabel,
  onChange,
}: {
  inputRef: RefObject<HTMLTextAreaElement | null>;
  value: string;
  disabled: boolean;
  /** The script and question on screen (drafts.ts): a new one clears the dictation's last failure. */
  draftKey: string | null;
  /** The words dictation should spell right (dictation-prompt.ts). */
  dictationPrompt: string;
  questionId: string;
  questionLabel: string;
  onChange: (comment: string) => void;
}) {
  // What was typed before the dictation started, per question.
  const dictationBase = useRef<{ key: string; text: string } | null>(null);
  return (
    <div className="field marking__comment-field">
      {/* The microphone sits beside the label, so the comment takes one row less (a tablet's height is short). */}
      <div className="marking__comment-head">
        <label className="field__label" htmlFor="comment-input">
          Comment <span className="muted">(optional)</span>
        </label>
        <DictationButton
          disabled={disabled}
          resetKey={draftKey}
          prompt={dictationPrompt}
          onStart={() => {
            dictationBase.current = null;
          }}
          onText={(finals, partial) => {
            // Dictation adds to what was typed before it started: the base is kept per question.
            if (!draftKey) return;
            const base = dictationBase.current?.key === draftKey ? dictationBase.current.text : value;
            dictationBase.current = { key: draftKey, text: base };
            onChange([base.trim(), finals, partial].filter(Boolean).join(" "));
          }}
        />
      </div>
      <textarea
        id="comment-input"
        ref={inputRef}
        className="input textarea"
        rows={3}
        // Shown while empty; on a rubric question the empty box is one line tall (globals.css).
        placeholder="Optional: press c to write one"
        value={value}
        disabled={disabled}
        onChange={(event) => onChange(event.currentTarget.value)}
      />
      <CommentBank
        questionId={questionId}
        questionLabel={questionLabel}
        comment={value}
        disabled={disabled}
        onInsert={(text) => {
          onChange(value.trim() ? `${value.trimEnd()} ${text}` : text);
          inputRef.current?.focus();
        }}
      />
    </div>
  );
}
