"use client";

import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Status } from "@/components/ui/Status";
import { errorMessage } from "@/lib/trpc/errors";
import { type SubmissionAnswer, answerInWords } from "@/components/answers/answers-state";
import { ariaKeyShortcuts } from "./keyboard-map";

/**
 * What was read from the scan for the question on screen, beside its mark (issue 36): "Read from the
 * ticks: B", or "Blank" for a written answer with nothing on it; and when the mark was given
 * automatically (from the ticks, or a blank given 0), that it was, with the way to undo it (u).
 * Nothing when the question was not read.
 */
export function AnswerReading({
  reading,
  disabled,
  undoing,
  undoError,
  onUndo,
}: {
  reading: SubmissionAnswer | undefined;
  disabled: boolean;
  undoing: boolean;
  undoError: unknown;
  onUndo: () => void;
}) {
  if (!reading) return null;
  const automatic = reading.marked_by === "ticks" || reading.marked_by === "blank";
  const what =
    reading.blank !== null
      ? reading.blank === "blank"
        ? "Blank"
        : reading.blank === "written"
          ? null
          : "Perhaps blank: look at the scan"
      : reading.read_answer === null
        ? "Ticks not read for certain: look at the scan"
        : `Read from the ticks: ${answerInWords(reading.read_answer)}`;
  if (!what && !automatic) return null;
  return (
    <div className="answer-reading" role="group" aria-label="Read from the scan">
      <p className="answer-reading__line">
        {what ? <span className="answer-reading__what">{what}</span> : null}{" "}
        {automatic ? (
          <Badge tone="neutral">{reading.marked_by === "ticks" ? "automatic mark" : "given 0 automatically"}</Badge>
        ) : reading.marked_by === "teacher" && reading.teacher_answer ? (
          <span className="muted">a teacher chose {answerInWords(reading.teacher_answer)}</span>
        ) : null}
      </p>
      {automatic ? (
        <Button variant="secondary" size="small" disabled={disabled} loading={undoing} loadingLabel="Undoing…" aria-keyshortcuts={ariaKeyShortcuts("undoAutomaticMark")} onClick={onUndo}>
          Undo the automatic mark <kbd aria-hidden="true">u</kbd>
        </Button>
      ) : null}
      {undoError ? (
        <Status tone="error" title="The automatic mark was not undone">
          {errorMessage(undoError)}
        </Status>
      ) : null}
    </div>
  );
}
