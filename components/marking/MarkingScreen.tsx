"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { preload } from "react-dom";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Modal } from "@/components/ui/Modal";
import { Status } from "@/components/ui/Status";
import { useTRPC } from "@/lib/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";
import { SubmissionStateBadge } from "@/components/batches/SubmissionStateBadge";
import type { AppRouter } from "@/server/trpc/root";
import { type Draft, draftKey, parseMark } from "./drafts";
import { CommentBank } from "./CommentBank";
import { DictationButton } from "./DictationButton";
import { dictationPrompt } from "./dictation-prompt";
import { type MarkingAction, ariaKeyShortcuts } from "./keyboard-map";
import {
  type MarkingMode,
  afterConfirm,
  clampQuestion,
  firstScriptToMark,
  markableQuestions,
  markableScripts,
  pageOfQuestion,
  questionNextScriptOpensOn,
  scriptsAround,
  upcomingScans,
} from "./marking-order";
import { MarkField, UnscannedQuestion } from "./MarkField";
import { QuestionDetails } from "./QuestionDetails";
import { QuestionStrip } from "./QuestionStrip";
import { ScanPane } from "./ScanPane";
import { useScanPlacement } from "./use-scan-placement";
import { type RubricChange, appliedItemsOf, giveNoMarks, itemIndexOfKey, markHint, noMarksKey, nothingToConfirm, rubricMarkText, toggleRubricItem } from "./rubric-marks";
import { itemsOfQuestion } from "@/components/rubric/rubric-items";
import { SaveIndicator } from "./SaveIndicator";
import type { CoveredArea, HighlightArea } from "./ScanViewer";
import { nameBoxOf } from "@/lib/rules/name-box";
import { ShortcutSheet } from "./ShortcutSheet";
import { useMarkingKeys } from "./use-marking-keys";
import { useSaveQueue } from "./use-save-queue";
import { scanPath, useScans } from "./use-scans";
import { useFillHeight } from "@/components/ui/use-fill-height";
import { Loading } from "@/components/ui/Loading";

// Only a template's owner opens the rubric editor here: its code loads when the dialog first opens.
const RubricEditor = dynamic(() => import("@/components/rubric/RubricEditor").then((module) => module.RubricEditor), {
  ssr: false,
  loading: () => <Loading>Opening the rubric…</Loading>,
});

type RouterOutputs = inferRouterOutputs<AppRouter>;

/** Below this the marking screen stops shrinking and the page scrolls instead (a phone, a split screen). */
const MIN_BODY_HEIGHT = 448;

/**
 * The marking screen, by student: the script on the left scrolled to the current question's answer
 * area; the question, its mark scheme, the mark and a comment on the right. Keyboard-first (see the
 * shortcut sheet). Everything typed is a draft in sessionStorage until the server has it; saves retry,
 * then show an error with a Retry button. The order of marking is marking-order.ts, the keys
 * keyboard-map.ts, the saving use-save-queue.ts.
 */
export function MarkingScreen({
  batchId,
  userId,
  initialSubmissionId,
  initialMode = "student",
  initialQueue,
  initialTemplate,
}: {
  batchId: string;
  /** The signed-in user: the template's owner may edit its rubric from here. */
  userId: string;
  initialSubmissionId: string | null;
  initialMode?: MarkingMode;
  /** Read by the page on the server, so the screen renders at once (the queue then refreshes as usual). */
  initialQueue?: RouterOutputs["exam"]["batches"]["queue"];
  initialTemplate?: RouterOutputs["exam"]["templates"]["get"];
}) {
  // The scan named in the address starts downloading with the page's scripts (a preload in the HTML),
  // not after hydration.
  if (initialSubmissionId && /^[0-9a-f-]{36}$/i.test(initialSubmissionId)) preload(scanPath(initialSubmissionId), { as: "fetch", crossOrigin: "anonymous" });
  const trpc = useTRPC();
  const queue = useQuery({ ...trpc.exam.batches.queue.queryOptions({ batch_id: batchId }), refetchInterval: 10_000, initialData: initialQueue });
  const templateId = queue.data?.batch.template_id;
  const template = useQuery({
    ...trpc.exam.templates.get.queryOptions({ template_id: templateId ?? "" }),
    enabled: Boolean(templateId),
    staleTime: 5 * 60_000,
    initialData: initialTemplate?.id === templateId ? initialTemplate : undefined,
  });

  // Shared marking: a marker's screen holds their allocation only (its scripts, its questions); a colleague
  // who is neither the owner, a marker nor a department head marks nothing (batch-gate.ts).
  const myWork = useQuery({
    ...trpc.exam.markers.myWork.queryOptions({ batch_id: batchId }),
    enabled: Boolean(queue.data),
    refetchInterval: 10_000,
  });
  // A signed-off batch is read-only until a department head reopens it.
  const moderation = useQuery({ ...trpc.exam.moderation.state.queryOptions({ batch_id: batchId }), enabled: Boolean(queue.data) });
  const signedOff = Boolean(moderation.data?.sign_off);
  const allocation = myWork.data && myWork.data.marks !== "everything" ? myWork.data : undefined;
  const scripts = useMemo(() => {
    const all = markableScripts(queue.data?.submissions ?? []);
    if (!allocation) return all;
    const mine = new Set(allocation.scripts.map((entry) => entry.submission_id));
    return all.filter((entry) => mine.has(entry.id));
  }, [queue.data, allocation]);
  const questions = useMemo(() => {
    const all = markableQuestions(template.data?.questions ?? []);
    if (!allocation) return all;
    const mine = new Set(allocation.scripts.flatMap((entry) => entry.question_ids));
    return all.filter((entry) => mine.has(entry.id));
  }, [template.data, allocation]);

  const [chosenSubmissionId, setSubmissionId] = useState<string | null>(initialSubmissionId);
  const [questionIndex, setQuestionIndex] = useState(0);
  const [inputError, setInputError] = useState<string | null>(null);
  const [sheetOpen, setSheetOpen] = useState(false);
  const [rubricOpen, setRubricOpen] = useState(false);
  /** The last rubric change, shown and said until the next one (on its own question only). */
  const [lastChange, setLastChange] = useState<{ key: string; change: RubricChange } | null>(null);
  const queryClient = useQueryClient();
  const [finished, setFinished] = useState(false);
  const [mode, setMode] = useState<MarkingMode>(initialMode);
  const markInput = useRef<HTMLInputElement>(null);
  const dictationBase = useRef<{ key: string; text: string } | null>(null);
  const commentInput = useRef<HTMLTextAreaElement>(null);
  const saving = useSaveQueue(batchId, questions);
  const archived = queue.data?.batch.status === "archived";

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
  const readOnly = archived || signedOff || notMineHere;

  // The submission in the address is fetched at once, without waiting for the queue to list it.
  const marksQuery = useQuery({ ...trpc.exam.marks.forSubmission.queryOptions({ submission_id: submissionId ?? "" }), enabled: Boolean(submissionId) });
  const { scan, nextBytes, previousBytes } = useScans(submissionId, around.next, around.previous);

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

  // The pair on screen is claimed while it is open (shared batches only), and released when the marker moves on.
  const sharedMarking = Boolean(myWork.data?.shared) && myWork.data?.marks !== "nothing" && !archived && !signedOff && !notMineHere;
  const { mutate: claimPair, error: claimError, reset: resetClaim } = useMutation(trpc.exam.claims.claim.mutationOptions());
  const { mutate: releasePair } = useMutation(trpc.exam.claims.release.mutationOptions());
  const openQuestionId = question?.id;
  useEffect(() => {
    if (!sharedMarking || !submissionId || !openQuestionId) return;
    const pair = { submission_id: submissionId, question_id: openQuestionId };
    resetClaim();
    claimPair({ batch_id: batchId, body: pair });
    return () => releasePair({ batch_id: batchId, body: pair });
  }, [sharedMarking, submissionId, openQuestionId, batchId, claimPair, releasePair, resetClaim]);

  const recordedHere = question && submissionId ? marksQuery.data?.marks.find((m) => m.question_id === question.id) : undefined;
  const key = question && submissionId ? draftKey(submissionId, question.id) : null;
  const draft = key ? saving.drafts[key] : undefined;
  // A question with rubric items is marked by applying them: the mark is their sum (rubric-marks.ts).
  const rubricItems = useMemo(() => (question ? itemsOfQuestion(template.data?.rubric_items ?? [], question.id) : []), [template.data, question]);
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

  const goToQuestion = useCallback((index: number) => {
    setInputError(null);
    // A change said on one question is not said again when the marker comes back to it.
    setLastChange(null);
    setQuestionIndex(clampQuestion(index, questions.length));
  }, [questions.length]);

  const goToScript = useCallback(
    (index: number, keepQuestion = mode === "question") => {
      const target = scripts[index];
      if (!target) return;
      setInputError(null);
      setLastChange(null);
      setSubmissionId(target.id);
      if (!keepQuestion) setQuestionIndex(0);
    },
    [scripts, mode],
  );

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
    const next = afterConfirm({ scriptIndex, questionIndex }, { scripts: scripts.length, questions: questions.length }, mode);
    if (next === "finished") {
      setFinished(true);
      return;
    }
    if (next.scriptIndex !== scriptIndex) goToScript(next.scriptIndex, true);
    if (next.questionIndex !== questionIndex) goToQuestion(next.questionIndex);
  }

  // Focus follows the current question: the mark input, its text selected for typing over.
  useEffect(() => {
    if (sheetOpen || rubricOpen) return;
    const input = markInput.current;
    if (!input) return;
    input.focus({ preventScroll: true });
    input.select();
  }, [submissionId, questionIndex, sheetOpen, rubricOpen, question?.id, mode]);

  const shortcutActions: Record<MarkingAction, (key: string) => void> = {
    // Digits typed anywhere on the screen go to the mark.
    typeMark: (digit) => {
      markInput.current?.focus();
      edit({ mark: markText + digit });
    },
    applyItem: (digit) => toggleItem(itemIndexOfKey(digit)),
    noMarks,
    confirm: confirmAndAdvance,
    nextQuestion: () => goToQuestion(questionIndex + 1),
    previousQuestion: () => goToQuestion(questionIndex - 1),
    nextScript: () => goToScript(scriptIndex + 1),
    previousScript: () => goToScript(scriptIndex - 1),
    writeComment: () => commentInput.current?.focus(),
    backToMark: () => markInput.current?.focus(),
    showShortcuts: () => setSheetOpen(true),
  };
  useMarkingKeys({ enabled: !sheetOpen && !rubricOpen, context: { rubric: isRubric, tenthItem: isRubric && !noMarksKey(rubricItems.length) }, markInput, onAction: (action, pressed) => shortcutActions[action](pressed) });

  // The scan and the panel fill the window down to its bottom edge, whatever sits above them.
  const [body, setBody] = useState<HTMLDivElement | null>(null);
  const bodyHeight = useFillHeight(body, MIN_BODY_HEIGHT);

  // Where the scan's pages belong (a page not scanned is shown missing, never replaced by the next one).
  const placement = marksQuery.data ? { pageNumbers: marksQuery.data.scan_page_numbers, paperPageCount: marksQuery.data.paper_page_count } : undefined;
  const { onPageCount, missingFor } = useScanPlacement(submissionId ?? undefined, placement, template.data?.response_areas ?? []);

  const areas: HighlightArea[] = useMemo(
    () => (template.data?.response_areas ?? []).filter((area) => area.question_id === question?.id),
    [template.data, question?.id],
  );
  const nextPage = useMemo(
    () => pageOfQuestion(template.data?.response_areas ?? [], questionNextScriptOpensOn(questions, questionIndex, mode, around.wrapsAround)?.id),
    [template.data, mode, around.wrapsAround, questionIndex, questions],
  );
  const upcoming = useMemo(
    () => upcomingScans(around.next && { id: around.next.id, bytes: nextBytes, page: nextPage }, around.previous && { id: around.previous.id, bytes: previousBytes }),
    [around.next, nextBytes, nextPage, around.previous, previousBytes],
  );

  if (queue.isPending || (templateId && template.isPending)) {
    return <Loading>Loading the marking screen…</Loading>;
  }
  if (queue.isError || template.isError) {
    return (
      <Status tone="error" title="The marking screen could not be loaded">
        {errorMessage(queue.error ?? template.error)} <Link href={`/batches/${batchId}`}>Back to the batch</Link>
      </Status>
    );
  }
  if (allocation?.marks === "nothing") {
    return allocation.shared ? (
      <Status tone="info" title="This batch's marking is shared">
        Its owner has allocated the marking to invited markers, and you are not one of them. <Link href={`/batches/${batchId}`}>Back to the batch</Link>
      </Status>
    ) : (
      <Status tone="info" title="This batch is another teacher's">
        You can read its scripts and results on the batch page; to mark it, ask its owner to invite you as a marker. <Link href={`/batches/${batchId}`}>Back to the batch</Link>
      </Status>
    );
  }
  if (scripts.length === 0 || questions.length === 0 || !script || !question) {
    return (
      <Status tone="info" title={questions.length === 0 ? "This template has no questions to mark" : "No scanned scripts yet"}>
        {questions.length === 0 ? "Add questions to the template first." : "Upload scans on the batch page, then come back to mark them."}{" "}
        <Link href={`/batches/${batchId}`}>Back to the batch</Link>
      </Status>
    );
  }

  const ownsTemplate = template.data?.owner_id === userId;
  // Marks re-scored by the edits come back with the script's marks and the queue.
  const closeRubric = () => {
    setRubricOpen(false);
    void queryClient.invalidateQueries({ queryKey: trpc.exam.marks.forSubmission.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.exam.batches.queue.queryKey({ batch_id: batchId }) });
  };
  const saveState = key ? saving.saveStates[key] : undefined;
  const dirty = Boolean(draft);
  const marksByQuestion = new Map((marksQuery.data?.marks ?? []).map((m) => [m.question_id, m]));
  const unsavedElsewhere = Object.keys(saving.drafts).filter((k) => k !== key).length;
  // An anonymous batch names the script by its number (the server sends no name) and blurs where the
  // name is written on the scan.
  const anonymous = queue.data.batch.anonymous;
  const studentName = anonymous ? `Script ${script.script_number}` : (script.student_name ?? "Unmatched scan");
  const covers: CoveredArea[] = anonymous && template.data ? [{ ...nameBoxOf(template.data), label: "Name hidden: anonymous marking" }] : [];
  // Dictation spells the question's scheme and rubric words, and the class's names, right; from what
  // this screen already holds (an anonymous batch: no names, and the server sent none).
  const promptForDictation = dictationPrompt({
    markScheme: question.mark_scheme,
    rubricItems,
    studentName: script.student_name,
    classNames: queue.data.submissions.map((submission) => submission.student_name),
    anonymous,
  });
  // The queue is read once; the marks of this script are live, so its state follows them as the server's
  // rule does (complete when every question has a confirmed mark).
  const confirmedCount = questions.filter((q) => marksByQuestion.get(q.id)?.confirmed && marksByQuestion.get(q.id)?.awarded_marks !== null).length;
  const liveStatus =
    questions.length > 0 && confirmedCount === questions.length ? "complete" : marksByQuestion.size > 0 ? "marking" : script.status;

  const confirmRow = (
    <div className="marking__confirm-row">
      <Button onClick={confirmAndAdvance} disabled={archived || signedOff} aria-keyshortcuts={ariaKeyShortcuts("confirm")}>
        {notMineHere ? "Next" : "Confirm and next"}
      </Button>
      <SaveIndicator
        state={saveState}
        dirty={dirty}
        confirmed={Boolean(recordedHere?.confirmed) && !dirty}
        onRetry={() => key && void saving.save(key)}
      />
    </div>
  );

  return (
    <div className="marking">
      <header className="marking__bar">
        <Link href={`/batches/${batchId}`} className="back-link">
          ← {queue.data.batch.title}
        </Link>
        <div className="marking__who">
          <h1 className="marking__student">{studentName}</h1>
          <span className="muted">{anonymous ? `${scriptIndex + 1} of ${scripts.length} scanned scripts` : `Script ${scriptIndex + 1} of ${scripts.length}`}</span>
          {anonymous ? (
<Badge tone="neutral">Anonymous</Badge>
          ) : null}
          {allocation ? <Badge tone="neutral">Your allocation</Badge> : null}
          <SubmissionStateBadge
            submission={{ ...script, status: liveStatus, marks_entered: marksByQuestion.size }}
            progress={{ marked: marksByQuestion.size, of: questions.length }}
          />
        </div>
        <div className="marking__bar-actions">
          <fieldset className="segmented marking__mode">
            <legend className="visually-hidden">Marking order</legend>
            <label className="segmented__option">
              <input type="radio" name="marking-mode" checked={mode === "student"} onChange={() => setMode("student")} />
              By student
            </label>
            <label className="segmented__option">
              <input type="radio" name="marking-mode" checked={mode === "question"} onChange={() => setMode("question")} />
              By question
            </label>
          </fieldset>
          <Button variant="secondary" size="small" onClick={() => goToScript(scriptIndex - 1)} disabled={scriptIndex <= 0} aria-keyshortcuts={ariaKeyShortcuts("previousScript")}>
            ← Previous script
          </Button>
          <Button variant="secondary" size="small" onClick={() => goToScript(scriptIndex + 1)} disabled={scriptIndex >= scripts.length - 1} aria-keyshortcuts={ariaKeyShortcuts("nextScript")}>
            Next script →
          </Button>
          <Button variant="secondary" size="small" onClick={() => setSheetOpen(true)} aria-keyshortcuts={ariaKeyShortcuts("showShortcuts")}>
            Shortcuts <kbd>?</kbd>
          </Button>
        </div>
      </header>

      <div className="marking__body" ref={setBody} style={bodyHeight ? { height: bodyHeight } : undefined}>
        <ScanPane
          scriptId={script.id}
          scan={scan}
          placement={placement}
          onPageCount={onPageCount}
          placementFailed={marksQuery.isError ? { error: marksQuery.error, retry: () => marksQuery.refetch() } : undefined}
          upcoming={upcoming}
          areas={areas}
          covers={covers}
          label={`Scan of ${studentName}`}
        />

        <aside className="marking__panel" aria-label="Marking">
          <QuestionStrip
            questions={questions}
            currentIndex={questionIndex}
            onGo={goToQuestion}
            stateOf={(questionId) => {
              const entry = marksByQuestion.get(questionId);
              const pending = Boolean(saving.drafts[draftKey(script.id, questionId)]);
              return {
                state: pending ? "draft" : entry?.confirmed && entry.awarded_marks !== null ? "done" : entry ? "partial" : "todo",
                marks: entry?.awarded_marks,
                unscanned: missingFor(questionId).length > 0,
              };
            }}
          />

          <QuestionDetails
            question={question}
            rubricItems={rubricItems}
            applied={appliedItems ?? []}
            zeroGiven={zeroGiven}
            lastChange={shownChange}
            disabled={readOnly}
            onToggle={toggleItem}
            onNoMarks={noMarks}
            rubricAction={
              ownsTemplate ? (
                <Button variant="secondary" size="small" onClick={() => setRubricOpen(true)}>
                  {isRubric ? "Edit rubric" : "Add a rubric"}
                </Button>
              ) : undefined
            }
          />

          <div className={`marking__entry${isRubric ? " marking__entry--rubric" : ""}`}>
            {notMineHere && !archived ? (
              <Status tone="info">
                Question {question.label} of this script is not in your allocation: another marker marks it. Press Enter to move on.
              </Status>
            ) : null}
            <UnscannedQuestion questionLabel={question.label} pages={missingFor(question.id)} />
            <MarkField
              inputRef={markInput}
              value={markText}
              max={question.max_marks}
              isRubric={isRubric}
              disabled={readOnly}
              error={inputError}
              hint={markHint({ isRubric, items: rubricItems, applied: appliedItems, maxMarks: question.max_marks, mark: markText })}
              onChange={(value) => edit({ mark: value })}
            />
            {/* On a rubric question Confirm comes straight after the mark, so both stay on screen under the items; the optional comment follows. */}
            {isRubric ? confirmRow : null}
            <div className="field marking__comment-field">
              {/* The microphone sits beside the label, so the comment takes one row less (a tablet's height is short). */}
              <div className="marking__comment-head">
                <label className="field__label" htmlFor="comment-input">
                  Comment <span className="muted">(optional)</span>
                </label>
                <DictationButton
                  disabled={readOnly}
                  resetKey={key}
                  prompt={promptForDictation}
                  onStart={() => {
                    dictationBase.current = null;
                  }}
                  onText={(finals, partial) => {
                    // Dictation adds to what was typed before it started: the base is kept per question.
                    if (!key) return;
                    const base = dictationBase.current?.key === key ? dictationBase.current.text : commentText;
                    dictationBase.current = { key, text: base };
                    edit({ comment: [base.trim(), finals, partial].filter(Boolean).join(" ") });
                  }}
                />
              </div>
              <textarea
                id="comment-input"
                ref={commentInput}
                className="input textarea"
                rows={3}
                // Shown while empty; on a rubric question the empty box is one line tall (globals.css).
                placeholder="Optional: press c to write one"
                value={commentText}
                disabled={readOnly}
                onChange={(event) => edit({ comment: event.currentTarget.value })}
              />
              <CommentBank
                questionId={question.id}
                questionLabel={question.label}
                comment={commentText}
                disabled={readOnly}
                onInsert={(text) => {
                  edit({ comment: commentText.trim() ? `${commentText.trimEnd()} ${text}` : text });
                  commentInput.current?.focus();
                }}
              />
            </div>
            {isRubric ? null : confirmRow}
            {archived ? <Status tone="warning">This batch is archived: marks can be read but not changed.</Status> : null}
            {signedOff && !archived ? <Status tone="warning">This batch is signed off: marks can be read but not changed until a department head reopens it.</Status> : null}
            {claimError ? (
              <Status tone="warning" title="Not yours to mark right now">
                {errorMessage(claimError)}. Move on to another script or question; it is free again when they do.
              </Status>
            ) : null}
            {unsavedElsewhere > 0 ? (
              <Status tone="warning" title={`${unsavedElsewhere} other mark${unsavedElsewhere === 1 ? "" : "s"} not saved yet`}>
                They are kept in this browser tab and saved as soon as the server answers.
                <Button variant="secondary" size="small" onClick={saving.saveAll}>
                  Retry all
                </Button>
              </Status>
            ) : null}
            {finished ? (
              <Status tone="success" title="That was the last script">
                {mode === "student" ? "Every scanned script has been through." : "Every question of every scanned script has been through."} <Link href={`/batches/${batchId}`}>Back to the batch</Link>
              </Status>
            ) : null}
          </div>
        </aside>
      </div>
      <ShortcutSheet open={sheetOpen} onClose={() => setSheetOpen(false)} />
      {ownsTemplate && template.data ? (
        <Modal open={rubricOpen} labelledBy="rubric-dialog-heading" className="dialog--wide" onClose={closeRubric}>
          <div className="dialog__body">
            <h2 id="rubric-dialog-heading">Rubric of question {question.label}</h2>
            <p className="muted">Changes are saved at once. New points re-score every mark made of the item, in every open batch of this paper.</p>
            {rubricOpen ? <RubricEditor templateId={template.data.id} questionId={question.id} questionLabel={question.label} items={template.data.rubric_items} canEdit maxMarks={question.max_marks} /> : null}
          </div>
          <div className="dialog__actions">
            <Button onClick={closeRubric}>Done</Button>
          </div>
        </Modal>
      ) : null}
    </div>
  );
}
