"use client";

import { useCallback, useEffect, useState } from "react";
import { type MarkingMode, clampQuestion, firstScriptToMark, scriptsAround } from "./marking-order";

/**
 * The script and question on a marking screen, and the order of marking (by student or by question),
 * kept in the address (`?submission=…&mode=question`) without a navigation. The chosen script while the
 * scripts include it, else the first that still needs marking. With an allocation, a question that is
 * not the marker's on this script is `notMineHere`: shown, for the order of the screen, but not theirs
 * to mark.
 */
export function useMarkingSelection<S extends { id: string; status: string }, Q extends { id: string }>({
  scripts,
  questions,
  allocation,
  initialSubmissionId,
  initialMode,
}: {
  scripts: readonly S[];
  questions: readonly Q[];
  /** The marker's allocation, by script; none when they mark everything. */
  allocation: { scripts: readonly { submission_id: string; question_ids: readonly string[] }[] } | undefined;
  initialSubmissionId: string | null;
  initialMode: MarkingMode;
}) {
  const [chosenSubmissionId, setSubmissionId] = useState<string | null>(initialSubmissionId);
  const [questionIndex, setQuestionIndex] = useState(0);
  const [mode, setMode] = useState<MarkingMode>(initialMode);

  // The chosen script while the queue has it, else the first script that still needs marking.
  const submissionId =
    scripts.length === 0 || (chosenSubmissionId && scripts.some((s) => s.id === chosenSubmissionId)) ? chosenSubmissionId : firstScriptToMark(scripts)!.id;

  const scriptIndex = scripts.findIndex((s) => s.id === submissionId);
  const script = scriptIndex >= 0 ? scripts[scriptIndex] : undefined;
  const question = questions[Math.min(questionIndex, Math.max(0, questions.length - 1))];
  const around = scriptsAround(scripts, scriptIndex, mode);
  // An allocation may give a marker a question on some scripts only (by question and by script range):
  // on the others the question is shown, for the order of the screen, but is not theirs to mark.
  const allocatedHere = allocation ? new Set(allocation.scripts.find((entry) => entry.submission_id === script?.id)?.question_ids ?? []) : null;
  const notMineHere = Boolean(allocatedHere && question && !allocatedHere.has(question.id));

  // Keep the address pointing at the current script, without a navigation.
  useEffect(() => {
    if (!submissionId) return;
    const url = new URL(window.location.href);
    if (url.searchParams.get("submission") === submissionId && (url.searchParams.get("mode") ?? "student") === mode) return;
    url.searchParams.set("submission", submissionId);
    if (mode === "question") url.searchParams.set("mode", "question");
    else url.searchParams.delete("mode");
    window.history.replaceState(window.history.state, "", url);
  }, [submissionId, mode]);

  const goToQuestion = useCallback((index: number) => setQuestionIndex(clampQuestion(index, questions.length)), [questions.length]);

  /** Opens the script at `index` (on its first question, unless `keepQuestion`); false when there is none there. */
  const goToScript = useCallback(
    (index: number, keepQuestion = mode === "question") => {
      const target = scripts[index];
      if (!target) return false;
      setSubmissionId(target.id);
      if (!keepQuestion) setQuestionIndex(0);
      return true;
    },
    [scripts, mode],
  );

  return { mode, setMode, submissionId, scriptIndex, script, questionIndex, question, around, notMineHere, goToQuestion, goToScript };
}
