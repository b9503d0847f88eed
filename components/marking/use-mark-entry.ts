"use client";

import type { inferRouterOutputs } from "@trpc/server";
import { useEffect, useMemo, useRef, useState } from "react";
import { itemsOfQuestion } from "@/components/rubric/rubric-items";
import type { AppRouter } from "@/server/trpc/root";
import { type Draft, draftKey, parseMark } from "./drafts";
import { type MarkingMode, afterConfirm } from "./marking-order";
import { type RubricChange, appliedItemsOf, giveNoMarks, nothingToConfirm, rubricMarkText, toggleRubricItem } from "./rubric-marks";
import { useSaveQueue } from "./use-save-queue";

type RouterOutputs = inferRouterOutputs<AppRouter>;
type RecordedMark = RouterOutputs["exam"]["marks"]["forSubmission"]["marks"][number];
type RubricItem = RouterOutputs["exam"]["templates"]["get"]["rubric_items"][number];

/**
 * The mark of the question on screen: typed, or made by applying the question's rubric items; its
 * comment; confirming it and moving on (`afterConfirm`), or "finished" after the last. Everything typed
 * is a draft until the server has it (use-save-queue.ts). What is said about the mark (an error, the
 * last rubric change) belongs to the question on screen: moving to another script or question through
 * `goToQuestion`/`goToScript` clears it. Focus follows the current question: the mark input, its text
 * selected for typing over (not while `focusPaused`, a dialog being open).
 */
export function useMarkEntry<Q extends { id: string; max_marks: number | null }>({
  batchId,
  questions,
  rubricItemsOfPaper,
  marks,
  selection,
  scriptCount,
  readOnly,
  notMineHere,
  focusPaused,
  shapeIdsOf,
}: {
  batchId: string;
  /** The questions marked on this screen, in order. */
  questions: readonly Q[];
  rubricItemsOfPaper: readonly RubricItem[] | undefined;
  /** The marks recorded on the script on screen, once read. */
  marks: readonly RecordedMark[] | undefined;
  selection: {
    submissionId: string | null;
    question: Q | undefined;
    questionIndex: number;
    scriptIndex: number;
    mode: MarkingMode;
    goToQuestion: (index: number) => void;
    goToScript: (index: number, keepQuestion?: boolean) => boolean;
  };
  scriptCount: number;
  readOnly: boolean;
  /** The question is not the marker's on this script: Enter moves on without a mark. */
  notMineHere: boolean;
  focusPaused: boolean;
  /** The annotations that justify a question's mark on a script (its annotation_shape_ids), undefined while not known. */
  shapeIdsOf?: (submissionId: string, questionId: string) => readonly string[] | undefined;
}) {
  const { submissionId, question, questionIndex, scriptIndex, mode } = selection;
  const [inputError, setInputError] = useState<string | null>(null);
  /** The last rubric change, shown and said until the next one (on its own question only). */
  const [lastChange, setLastChange] = useState<{ key: string; change: RubricChange } | null>(null);
  const [finished, setFinished] = useState(false);
  const markInput = useRef<HTMLInputElement>(null);
  const saving = useSaveQueue(batchId, questions, shapeIdsOf);

  const recordedHere = question && submissionId ? marks?.find((m) => m.question_id === question.id) : undefined;
  const key = question && submissionId ? draftKey(submissionId, question.id) : null;
  const draft = key ? saving.drafts[key] : undefined;
  // A question with rubric items is marked by applying them: the mark is their sum (rubric-marks.ts).
  const rubricItems = useMemo(() => (question ? itemsOfQuestion(rubricItemsOfPaper ?? [], question.id) : []), [rubricItemsOfPaper, question]);
  const isRubric = rubricItems.length > 0;
  // The items applied: the draft's, else the recorded mark's; a mark typed before the rubric existed has none until an item is applied.
  const recordedItems = appliedItemsOf(recordedHere?.mark_scheme_detail) ?? (recordedHere?.awarded_marks != null ? undefined : []);
  const appliedItems = isRubric ? (draft ? draft.items : recordedItems) : undefined;
  const typedOrRecorded = draft?.mark ?? (recordedHere?.awarded_marks != null ? String(recordedHere.awarded_marks) : "");
  // With no item applied the mark is empty (nothing recorded), or the 0 of "No marks": never a 0 by itself.
  const markText = appliedItems && question ? rubricMarkText(rubricItems, appliedItems, question.max_marks, typedOrRecorded) : typedOrRecorded;
  const zeroGiven = Boolean(appliedItems && appliedItems.length === 0 && markText.trim() !== "");
  const shownChange = lastChange && lastChange.key === key ? lastChange.change : null;
  const commentText = draft?.comment ?? recordedHere?.comment ?? "";
  // The draft a first change starts from: what is recorded (or nothing), under the recorded entry's id.
  const freshDraft = (): Draft => ({
    markId: recordedHere?.id ?? crypto.randomUUID(),
    mark: markText,
    comment: commentText,
    confirm: recordedHere?.confirmed ?? false,
    revision: 0,
    ...(isRubric && recordedItems ? { items: recordedItems } : {}),
  });

  /** Applies or removes the question's item at `index` (its key's), the mark following; the change is shown and said. */
  function toggleItem(index: number | null) {
    if (!question || readOnly || !key || !submissionId) return;
    changeRubric(toggleRubricItem(rubricItems, appliedItems ?? [], index, question.max_marks));
  }
  /** "No marks": 0 on purpose, every item removed. */
  function noMarks() {
    if (!question || readOnly || !key || !submissionId || !isRubric) return;
    changeRubric(giveNoMarks(rubricItems, appliedItems ?? [], question.max_marks));
  }
  function changeRubric(change: RubricChange | null) {
    if (!change || !key) return;
    setInputError(null);
    setFinished(false);
    setLastChange({ key, change });
    saving.editNow(key, { items: change.items, mark: change.mark }, freshDraft);
    markInput.current?.focus();
  }

  function edit(change: Partial<Pick<Draft, "mark" | "comment" | "items">>) {
    if (!key || !question || !submissionId) return;
    setInputError(null);
    setFinished(false);
    saving.edit(key, change, freshDraft);
  }

  function goToQuestion(index: number) {
    setInputError(null);
    // A change said on one question is not said again when the marker comes back to it.
    setLastChange(null);
    selection.goToQuestion(index);
  }

  function goToScript(index: number, keepQuestion?: boolean) {
    if (!selection.goToScript(index, keepQuestion)) return;
    setInputError(null);
    setLastChange(null);
  }

  function confirmAndAdvance() {
    if (!key || !question || !submissionId) return;
    if (notMineHere) {
      advance();
      return;
    }
    // An empty question stays empty: Enter records no 0 by itself, and says how to give one.
    const parsed = markText.trim() === "" ? { error: nothingToConfirm(isRubric, rubricItems.length) } : parseMark(markText, question.max_marks);
    if ("error" in parsed) {
      setInputError(parsed.error);
      markInput.current?.focus();
      return;
    }
    saving.confirm(key, markText, freshDraft);
    advance();
  }
  /** To the next question or script, as the mode orders them. */
  function advance() {
    const next = afterConfirm({ scriptIndex, questionIndex }, { scripts: scriptCount, questions: questions.length }, mode);
    if (next === "finished") {
      setFinished(true);
      return;
    }
    if (next.scriptIndex !== scriptIndex) goToScript(next.scriptIndex, true);
    if (next.questionIndex !== questionIndex) goToQuestion(next.questionIndex);
  }

  // Focus follows the current question: the mark input, its text selected for typing over.
  const questionId = question?.id;
  useEffect(() => {
    if (focusPaused) return;
    const input = markInput.current;
    if (!input) return;
    input.focus({ preventScroll: true });
    input.select();
  }, [submissionId, questionIndex, focusPaused, questionId, mode]);

  const saveState = key ? saving.saveStates[key] : undefined;
  return {
    markInput,
    key,
    recorded: recordedHere,
    rubricItems,
    isRubric,
    appliedItems,
    markText,
    zeroGiven,
    shownChange,
    commentText,
    inputError,
    finished,
    /** Whether a question of a script has a draft not saved yet (the question strip's "unsaved"). */
    unsaved: (submission: string, questionId: string) => Boolean(saving.drafts[draftKey(submission, questionId)]),
    saveState,
    dirty: Boolean(draft),
    unsavedElsewhere: Object.keys(saving.drafts).filter((k) => k !== key).length,
    retrySave: () => key && void saving.save(key),
    saveAll: saving.saveAll,
    edit,
    toggleItem,
    noMarks,
    confirmAndAdvance,
    goToQuestion,
    goToScript,
  };
}
