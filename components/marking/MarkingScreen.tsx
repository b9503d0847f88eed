"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useRef, useState } from "react";
import { preload } from "react-dom";
import { AnnotationOverlay } from "./AnnotationOverlay";
import { AnswerReading } from "./AnswerReading";
import { AnnotationToolbar, type StampMenu } from "./AnnotationToolbar";
import { useAnnotationEditor } from "./use-annotation-editor";
import { itemsOfQuestion } from "@/components/rubric/rubric-items";
import { Button } from "@/components/ui/Button";
import { Loading } from "@/components/ui/Loading";
import { useFillHeight } from "@/components/ui/use-fill-height";
import { useTRPC } from "@/components/trpc/client";
import { nameBoxOf } from "@/lib/rules/name-box";
import { CommentField } from "./CommentField";
import { ConfirmRow } from "./ConfirmRow";
import { dictationPrompt } from "./dictation-prompt";
import type { MarkingAction } from "./keyboard-map";
import { MarkingBar } from "./MarkingBar";
import { MarkingNotices, NotInAllocationNotice } from "./MarkingNotices";
import { MarkingUnavailable } from "./MarkingUnavailable";
import type { MarkingMode } from "./marking-order";
import { MarkField, UnscannedQuestion } from "./MarkField";
import { QuestionDetails } from "./QuestionDetails";
import { QuestionStrip } from "./QuestionStrip";
import { RubricDialog } from "./RubricDialog";
import { itemIndexOfKey, markHint, noMarksKey } from "./rubric-marks";
import { ScanPane } from "./ScanPane";
import { liveScriptStatus, questionProgress } from "./script-progress";
import type { CoveredArea } from "./ScanViewer";
import { ShortcutSheet } from "./ShortcutSheet";
import { type MarkingQueue, type MarkingTemplate, useMarkingBatch } from "./use-marking-batch";
import { useMarkEntry } from "./use-mark-entry";
import { useMarkingKeys } from "./use-marking-keys";
import { useMarkingSelection } from "./use-marking-selection";
import { usePairClaim } from "./use-pair-claim";
import { scanPath } from "./use-scans";
import { useScriptScan } from "./use-script-scan";

/** Below this the marking screen stops shrinking and the page scrolls instead (a phone, a split screen). */
const MIN_BODY_HEIGHT = 448;

/**
 * The marking screen, by student: the script on the left scrolled to the current question's answer
 * area; the question, its mark scheme, the mark and a comment on the right. Keyboard-first (see the
 * shortcut sheet). Everything typed is a draft in sessionStorage until the server has it; saves retry,
 * then show an error with a Retry button. This file composes the parts: what is marked
 * (use-marking-batch.ts), the script and question on screen and the address (use-marking-selection.ts),
 * the shared-marking claim (use-pair-claim.ts), the mark, its rubric, comment and saving
 * (use-mark-entry.ts, use-save-queue.ts), the scan (use-script-scan.ts); the order of marking is
 * marking-order.ts, the keys keyboard-map.ts.
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
  initialQueue?: MarkingQueue;
  initialTemplate?: MarkingTemplate;
}) {
  // The scan named in the address starts downloading with the page's scripts (a preload in the HTML),
  // not after hydration.
  if (initialSubmissionId && /^[0-9a-f-]{36}$/i.test(initialSubmissionId)) preload(scanPath(initialSubmissionId), { as: "fetch", crossOrigin: "anonymous" });
  const trpc = useTRPC();
  const { queue, template, templateId, myWork, allocation, signedOff, archived, scripts, questions } = useMarkingBatch({ batchId, initialQueue, initialTemplate });
  const selection = useMarkingSelection({ scripts, questions, allocation, initialSubmissionId, initialMode });
  const { submissionId, script, scriptIndex, question, questionIndex, mode, around, notMineHere } = selection;
  const readOnly = archived || signedOff || notMineHere;
  const [sheetOpen, setSheetOpen] = useState(false);
  const [rubricOpen, setRubricOpen] = useState(false);
  const commentInput = useRef<HTMLTextAreaElement>(null);

  // The submission in the address is fetched at once, without waiting for the queue to list it.
  const marksQuery = useQuery({ ...trpc.exam.marks.forSubmission.queryOptions({ submission_id: submissionId ?? "" }), enabled: Boolean(submissionId) });
  // What was read from the scan (tick boxes, blanks) and which marks were given automatically (issue 36).
  const queryClient = useQueryClient();
  const answersQuery = useQuery({ ...trpc.exam.answers.forSubmission.queryOptions({ submission_id: submissionId ?? "" }), enabled: Boolean(submissionId) });
  const undoAutomatic = useMutation(
    trpc.exam.answers.undoAutomaticMark.mutationOptions({
      onSettled: async (_data, _error, variables) => {
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.exam.marks.forSubmission.queryKey({ submission_id: variables.submission_id }) }),
          queryClient.invalidateQueries({ queryKey: trpc.exam.answers.forSubmission.queryKey({ submission_id: variables.submission_id }) }),
        ]);
        entry.markInput.current?.focus();
      },
    }),
  );

  // The pair on screen is claimed while it is open (shared batches only), and released when the marker moves on.
  const claimError = usePairClaim({
    batchId,
    enabled: Boolean(myWork?.shared) && myWork?.marks !== "nothing" && !archived && !signedOff && !notMineHere,
    submissionId,
    questionId: question?.id,
  });

  const placement = marksQuery.data ? { pageNumbers: marksQuery.data.scan_page_numbers, paperPageCount: marksQuery.data.paper_page_count } : undefined;
  // The annotations of the script on screen, on the first marking's layer (use-annotation-editor.ts, AnnotationOverlay.tsx).
  const [stampMenu, setStampMenu] = useState<StampMenu>(null);
  const stampItems = useMemo(() => (question ? itemsOfQuestion(template.data?.rubric_items ?? [], question.id) : []), [template.data, question]);
  const annotations = useAnnotationEditor({
    batchId,
    submissionId,
    layer: "marking",
    readOnly: archived || signedOff,
    question,
    questions,
    areasOfPaper: template.data?.response_areas ?? [],
    pageNumbers: placement?.pageNumbers,
    rubricItems: stampItems,
    onDone: () => entry.markInput.current?.focus(),
  });

  const entry = useMarkEntry({
    batchId,
    questions,
    rubricItemsOfPaper: template.data?.rubric_items,
    marks: marksQuery.data?.marks,
    selection,
    scriptCount: scripts.length,
    readOnly,
    notMineHere,
    focusPaused: sheetOpen || rubricOpen,
    shapeIdsOf: annotations.shapeIdsOf,
  });
  const { markInput, key, isRubric, rubricItems, markText } = entry;
  const reading = question ? answersQuery.data?.answers.find((answer) => answer.question_id === question.id && answer.submission_id === submissionId) : undefined;
  const automaticHere = reading?.marked_by === "ticks" || reading?.marked_by === "blank";
  const undoAutomaticMark = () => {
    if (!automaticHere || !submissionId || !question || readOnly || undoAutomatic.isPending) return;
    undoAutomatic.mutate({ submission_id: submissionId, question_id: question.id });
  };

  const shortcutActions: Record<MarkingAction, (key: string) => void> = {
    // Digits typed anywhere on the screen go to the mark.
    typeMark: (digit) => {
      markInput.current?.focus();
      entry.edit({ mark: markText + digit });
    },
    applyItem: (digit) => entry.toggleItem(itemIndexOfKey(digit)),
    noMarks: entry.noMarks,
    confirm: entry.confirmAndAdvance,
    nextQuestion: () => entry.goToQuestion(questionIndex + 1),
    previousQuestion: () => entry.goToQuestion(questionIndex - 1),
    nextScript: () => entry.goToScript(scriptIndex + 1),
    previousScript: () => entry.goToScript(scriptIndex - 1),
    writeComment: () => commentInput.current?.focus(),
    backToMark: () => markInput.current?.focus(),
    showShortcuts: () => setSheetOpen(true),
    annotateTick: annotations.keys.tick,
    annotateCross: annotations.keys.cross,
    annotateText: annotations.keys.text,
    annotateHighlight: annotations.keys.highlight,
    annotateStamp: () => stampItems.length > 0 && setStampMenu("keyboard"),
    toAnnotations: annotations.keys.toAnnotations,
    undoAnnotation: annotations.keys.undo,
    redoAnnotation: annotations.keys.redo,
    undoAutomaticMark: () => undoAutomaticMark(),
  };
  useMarkingKeys({ enabled: !sheetOpen && !rubricOpen, context: { rubric: isRubric, tenthItem: isRubric && !noMarksKey(rubricItems.length) }, markInput, onAction: (action, pressed) => shortcutActions[action](pressed) });

  // The scan and the panel fill the window down to its bottom edge, whatever sits above them.
  const [body, setBody] = useState<HTMLDivElement | null>(null);
  const bodyHeight = useFillHeight(body, MIN_BODY_HEIGHT);

  const { scan, onPageCount, missingFor, areas, upcoming } = useScriptScan({
    submissionId,
    around,
    areasOfPaper: template.data?.response_areas,
    placement,
    questionId: question?.id,
    questions,
    questionIndex,
    mode,
  });

  if (queue.isPending || (templateId && template.isPending)) {
    return <Loading>Loading the marking screen…</Loading>;
  }
  if (queue.isError || template.isError) return <MarkingUnavailable batchId={batchId} why={{ reason: "failed", error: queue.error ?? template.error }} />;
  if (allocation?.marks === "nothing") return <MarkingUnavailable batchId={batchId} why={{ reason: allocation.shared ? "shared-elsewhere" : "another-teachers" }} />;
  if (scripts.length === 0 || questions.length === 0 || !script || !question) {
    return <MarkingUnavailable batchId={batchId} why={{ reason: questions.length === 0 ? "no-questions" : "no-scripts" }} />;
  }

  const ownsTemplate = template.data?.owner_id === userId;
  const marksByQuestion = new Map((marksQuery.data?.marks ?? []).map((m) => [m.question_id, m]));
  // An anonymous batch names the script by its number (the server sends no name) and blurs where the
  // name is written on the scan.
  const anonymous = queue.data.batch.anonymous;
  const studentName = anonymous ? `Script ${script.script_number}` : (script.student_name ?? "Unmatched scan");
  const covers: CoveredArea[] = anonymous && template.data ? [{ ...nameBoxOf(template.data), label: "Name hidden: anonymous marking" }] : [];
  // The queue is read once; the marks of this script are live, so its state follows them (script-progress.ts).
  const liveStatus = liveScriptStatus(
    questions.map((q) => q.id),
    marksByQuestion,
    script.status,
  );

  const confirmRow = (
    <ConfirmRow
      notMine={notMineHere}
      disabled={archived || signedOff}
      onConfirm={entry.confirmAndAdvance}
      saveState={entry.saveState}
      dirty={entry.dirty}
      confirmed={Boolean(entry.recorded?.confirmed) && !entry.dirty}
      onRetry={entry.retrySave}
    />
  );

  return (
    <div className="marking">
      <MarkingBar
        batchId={batchId}
        batchTitle={queue.data.batch.title}
        studentName={studentName}
        anonymous={anonymous}
        allocated={Boolean(allocation)}
        scriptIndex={scriptIndex}
        scriptCount={scripts.length}
        submission={{ ...script, status: liveStatus, marks_entered: marksByQuestion.size }}
        progress={{ marked: marksByQuestion.size, of: questions.length }}
        mode={mode}
        onModeChange={selection.setMode}
        onGoToScript={entry.goToScript}
        onShowShortcuts={() => setSheetOpen(true)}
      />

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
          toolbar={<AnnotationToolbar editor={annotations} stampMenu={stampMenu} onStampMenu={setStampMenu} />}
          renderOverlay={({ scanPage, paperPage, ratio }) => (
            <AnnotationOverlay page={scanPage} paperPage={paperPage} shapes={annotations.shapesOfPage(scanPage)} editor={annotations.overlay} aspect={ratio} />
          )}
        />

        <aside className="marking__panel" aria-label="Marking">
          <QuestionStrip
            questions={questions}
            currentIndex={questionIndex}
            onGo={entry.goToQuestion}
            stateOf={(questionId) => ({
              state: questionProgress(marksByQuestion.get(questionId), entry.unsaved(script.id, questionId)),
              marks: marksByQuestion.get(questionId)?.awarded_marks,
              unscanned: missingFor(questionId).length > 0,
            })}
          />

          <QuestionDetails
            question={question}
            rubricItems={rubricItems}
            applied={entry.appliedItems ?? []}
            zeroGiven={entry.zeroGiven}
            lastChange={entry.shownChange}
            disabled={readOnly}
            onToggle={entry.toggleItem}
            onNoMarks={entry.noMarks}
            rubricAction={
              ownsTemplate ? (
                <Button variant="secondary" size="small" onClick={() => setRubricOpen(true)}>
                  {isRubric ? "Edit rubric" : "Add a rubric"}
                </Button>
              ) : undefined
            }
          />

          <div className={`marking__entry${isRubric ? " marking__entry--rubric" : ""}`}>
            {notMineHere && !archived ? <NotInAllocationNotice questionLabel={question.label} /> : null}
            <UnscannedQuestion questionLabel={question.label} pages={missingFor(question.id)} />
            <AnswerReading
              reading={reading}
              disabled={readOnly}
              undoing={undoAutomatic.isPending}
              undoError={undoAutomatic.variables?.question_id === question.id ? undoAutomatic.error : null}
              onUndo={undoAutomaticMark}
            />
            <MarkField
              inputRef={markInput}
              value={markText}
              max={question.max_marks}
              isRubric={isRubric}
              disabled={readOnly}
              error={entry.inputError}
              hint={markHint({ isRubric, items: rubricItems, applied: entry.appliedItems, maxMarks: question.max_marks, mark: markText })}
              onChange={(value) => entry.edit({ mark: value })}
            />
            {/* On a rubric question Confirm comes straight after the mark, so both stay on screen under the items; the optional comment follows. */}
            {isRubric ? confirmRow : null}
            <CommentField
              inputRef={commentInput}
              value={entry.commentText}
              disabled={readOnly}
              draftKey={key}
              // Dictation spells the question's scheme and rubric words, and the class's names, right; from what
              // this screen already holds (an anonymous batch: no names, and the server sent none).
              dictationPrompt={dictationPrompt({
                markScheme: question.mark_scheme,
                rubricItems,
                studentName: script.student_name,
                classNames: queue.data.submissions.map((submission) => submission.student_name),
                anonymous,
              })}
              questionId={question.id}
              questionLabel={question.label}
              onChange={(comment) => entry.edit({ comment })}
            />
            {isRubric ? null : confirmRow}
            <MarkingNotices
              batchId={batchId}
              archived={archived}
              signedOff={signedOff}
              claimError={claimError}
              unsavedElsewhere={entry.unsavedElsewhere}
              onRetryAll={entry.saveAll}
              finished={entry.finished}
              mode={mode}
            />
          </div>
        </aside>
      </div>
      <ShortcutSheet open={sheetOpen} onClose={() => setSheetOpen(false)} />
      {ownsTemplate && template.data ? (
        <RubricDialog
          open={rubricOpen}
          onClose={() => setRubricOpen(false)}
          batchId={batchId}
          templateId={template.data.id}
          question={question}
          items={template.data.rubric_items}
        />
      ) : null}
    </div>
  );
}
