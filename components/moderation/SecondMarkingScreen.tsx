"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useMemo, useRef, useState } from "react";
import { AnnotationOverlay } from "@/components/marking/AnnotationOverlay";
import { AnnotationToolbar, type StampMenu } from "@/components/marking/AnnotationToolbar";
import { useAnnotationEditor } from "@/components/marking/use-annotation-editor";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Loading } from "@/components/ui/Loading";
import { Status } from "@/components/ui/Status";
import { useFillHeight } from "@/components/ui/use-fill-height";
import { itemsOfQuestion } from "@/components/rubric/rubric-items";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";
import { parseMark } from "@/components/marking/drafts";
import { type MarkingAction, ariaKeyShortcuts } from "@/components/marking/keyboard-map";
import { MarkField, UnscannedQuestion } from "@/components/marking/MarkField";
import { pageOfQuestion, upcomingScans } from "@/components/marking/marking-order";
import { QuestionDetails } from "@/components/marking/QuestionDetails";
import { QuestionStrip } from "@/components/marking/QuestionStrip";
import { type RubricChange, giveNoMarks, itemIndexOfKey, markHint, noMarksKey, nothingToConfirm, toggleRubricItem } from "@/components/marking/rubric-marks";
import { ScanPane } from "@/components/marking/ScanPane";
import type { HighlightArea } from "@/components/marking/ScanViewer";
import { ShortcutSheet } from "@/components/marking/ShortcutSheet";
import { useMarkingKeys } from "@/components/marking/use-marking-keys";
import { useScanPlacement } from "@/components/marking/use-scan-placement";
import { useScans } from "@/components/marking/use-scans";

const MIN_BODY_HEIGHT = 448;

/** What the second marker has typed or applied for one (script, question) and not yet saved. */
interface SecondDraft {
  mark: string;
  items?: string[];
}

const keyOf = (submissionId: string, questionId: string) => `${submissionId}/${questionId}`;

/**
 * Blind second marking (issue 32, item 4) with the marking screen's parts and keys: the sampled script's
 * scan on the left, its pages placed by their page number; on the right the question, its mark scheme
 * and rubric, and the second mark. Digits type the mark (or apply rubric items), Enter saves it and moves
 * to the next question, then the next script. Blind: everything on this page comes from the moderation
 * queue and the paper; no first mark, comment or first marker is asked for (nor the marks that the
 * first marker's screen prefetches).
 */
export function SecondMarkingScreen({ batchId, initialSubmissionId }: { batchId: string; initialSubmissionId: string | null }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const queueOptions = trpc.exam.moderation.queue.queryOptions({ batch_id: batchId });
  const queue = useQuery(queueOptions);
  const state = useQuery(trpc.exam.moderation.state.queryOptions({ batch_id: batchId }));
  const templateId = queue.data?.template_id;
  const template = useQuery({ ...trpc.exam.templates.get.queryOptions({ template_id: templateId ?? "" }), enabled: Boolean(templateId), staleTime: 5 * 60_000 });

  // The scripts as first read: a script leaves the queue only when reconciled, and this screen keeps its order meanwhile.
  const scripts = useMemo(() => queue.data?.scripts ?? [], [queue.data]);
  const [chosenId, setChosenId] = useState<string | null>(initialSubmissionId);
  const scriptIndex = Math.max(0, scripts.findIndex((entry) => entry.submission_id === chosenId));
  const script = scripts[scriptIndex];
  const [questionIndex, setQuestionIndex] = useState(0);
  const question = script?.questions[Math.min(questionIndex, script.questions.length - 1)];
  const [drafts, setDrafts] = useState<Record<string, SecondDraft>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [finished, setFinished] = useState(false);
  const [sheetOpen, setSheetOpen] = useState(false);
  const [lastChange, setLastChange] = useState<{ key: string; change: RubricChange } | null>(null);
  const markInput = useRef<HTMLInputElement>(null);
  const locked = Boolean(state.data?.sign_off);

  const next = scripts[scriptIndex + 1] && { id: scripts[scriptIndex + 1]!.submission_id };
  const previous = scripts[scriptIndex - 1] && { id: scripts[scriptIndex - 1]!.submission_id };
  const { scan, nextBytes, previousBytes } = useScans(script?.submission_id ?? null, next, previous, { prefetchMarks: false });

  const areasOfPaper = useMemo(() => template.data?.response_areas ?? [], [template.data]);
  const placement = script && template.data ? { pageNumbers: script.scan_page_numbers, paperPageCount: template.data.page_count } : undefined;
  const { onPageCount, missingFor } = useScanPlacement(script?.submission_id, placement, areasOfPaper);
  const areas: HighlightArea[] = useMemo(() => areasOfPaper.filter((area) => area.question_id === question?.question_id), [areasOfPaper, question?.question_id]);
  const nextPage = pageOfQuestion(areasOfPaper, scripts[scriptIndex + 1]?.questions[0]?.question_id);
  const upcoming = useMemo(
    () => upcomingScans(next && { id: next.id, bytes: nextBytes, page: nextPage }, previous && { id: previous.id, bytes: previousBytes }),
    [next?.id, nextBytes, nextPage, previous?.id, previousBytes], // eslint-disable-line react-hooks/exhaustive-deps -- the ids name the scripts
  );

  const paperQuestion = template.data?.questions.find((entry) => entry.id === question?.question_id);
  const rubricItems = useMemo(() => (question ? itemsOfQuestion(template.data?.rubric_items ?? [], question.question_id) : []), [template.data, question]);
  const isRubric = rubricItems.length > 0;
  // The second marker's own annotations, on the blind layer: the first marker's are never asked for.
  const [stampMenu, setStampMenu] = useState<StampMenu>(null);
  const annotationQuestions = useMemo(() => (script?.questions ?? []).map((entry) => ({ id: entry.question_id, label: entry.label })), [script]);
  const annotations = useAnnotationEditor({
    batchId,
    submissionId: script?.submission_id ?? null,
    layer: "second_marking",
    readOnly: locked,
    question: question && { id: question.question_id, label: question.label },
    questions: annotationQuestions,
    areasOfPaper,
    pageNumbers: script?.scan_page_numbers,
    rubricItems,
    onDone: () => markInput.current?.focus(),
  });

  const key = script && question ? keyOf(script.submission_id, question.question_id) : null;
  const draft = key ? drafts[key] : undefined;
  const recorded = question?.second_marks ?? null;
  const applied = draft?.items ?? [];
  // A second mark keeps no items: a recorded one reads as typed; with no item applied the mark is empty or the 0 of "No marks".
  const markText = draft ? draft.mark : recorded !== null ? String(recorded) : "";
  const shownChange = lastChange && lastChange.key === key ? lastChange.change : null;
  const error = key ? (errors[key] ?? null) : null;

  // Callbacks of the mutation itself, not of each `mutate` call: those run for the last call only, and
  // Enter moves on (and may save the next mark) before the server has answered.
  const save = useMutation(
    trpc.exam.moderation.saveSecondMark.mutationOptions({
      onSuccess: (saved, { submission_id, body: { question_id } }) => {
        const savedKey = keyOf(submission_id, question_id);
        queryClient.setQueryData(queueOptions.queryKey, (old) =>
          old && {
            ...old,
            scripts: old.scripts.map((entry) =>
              entry.submission_id !== submission_id
                ? entry
                : { ...entry, questions: entry.questions.map((item) => (item.question_id === question_id ? { ...item, second_marks: saved.awarded_marks } : item)) },
            ),
          },
        );
        setDrafts((all) => {
          const { [savedKey]: _saved, ...rest } = all;
          return rest;
        });
        setErrors((all) => {
          const { [savedKey]: _cleared, ...rest } = all;
          return rest;
        });
      },
      onError: (failure, { submission_id, body: { question_id } }) => setErrors((all) => ({ ...all, [keyOf(submission_id, question_id)]: `Not saved: ${errorMessage(failure)}` })),
      // The moderation page's counts, agreement and differences follow (read again when it opens).
      onSettled: () =>
        Promise.all(
          [trpc.exam.moderation.state, trpc.exam.moderation.agreement, trpc.exam.moderation.differences].map((procedure) =>
            queryClient.invalidateQueries({ queryKey: procedure.pathKey() }),
          ),
        ),
    }),
  );

  /** A change of the mark: kept as a draft; an error shown for it stays only while the value is still not a mark. */
  function change(value: SecondDraft) {
    if (!key || !question) return;
    setDrafts((all) => ({ ...all, [key]: value }));
    setFinished(false);
    if (errors[key]) {
      const parsed = parseMark(value.mark, question.max_marks);
      setErrors((all) => {
        const { [key]: _dropped, ...rest } = all;
        return "error" in parsed ? { ...rest, [key]: parsed.error } : rest;
      });
    }
  }

  function changeRubric(rubricChange: RubricChange | null) {
    if (!rubricChange || !key) return;
    setLastChange({ key, change: rubricChange });
    change({ items: rubricChange.items, mark: rubricChange.mark });
    markInput.current?.focus();
  }
  function toggleItem(index: number | null) {
    if (!question || locked) return;
    changeRubric(toggleRubricItem(rubricItems, applied, index, question.max_marks));
  }
  function noMarks() {
    if (!question || locked || !isRubric) return;
    changeRubric(giveNoMarks(rubricItems, applied, question.max_marks));
  }

  const goToQuestion = (index: number) => {
    if (!script) return;
    setQuestionIndex(Math.max(0, Math.min(index, script.questions.length - 1)));
  };
  const goToScript = (index: number) => {
    const target = scripts[index];
    if (!target) return;
    setChosenId(target.submission_id);
    setQuestionIndex(0);
  };

  function confirmAndAdvance() {
    if (!key || !script || !question || locked) return;
    // An empty question stays empty: Enter saves no 0 by itself.
    const parsed = markText.trim() === "" ? { error: nothingToConfirm(isRubric, rubricItems.length) } : parseMark(markText, question.max_marks);
    if ("error" in parsed) {
      setErrors((all) => ({ ...all, [key]: parsed.error }));
      markInput.current?.focus();
      return;
    }
    if (draft || recorded === null) {
      save.mutate({ submission_id: script.submission_id, body: { question_id: question.question_id, awarded_marks: parsed.value } });
    }
    if (questionIndex + 1 < script.questions.length) goToQuestion(questionIndex + 1);
    else if (scriptIndex + 1 < scripts.length) goToScript(scriptIndex + 1);
    else setFinished(true);
  }

  // Focus follows the current question: the mark, its text selected for typing over (once the screen has
  // loaded: before, there is no mark to focus).
  const loaded = Boolean(template.data);
  useEffect(() => {
    if (sheetOpen) return;
    markInput.current?.focus({ preventScroll: true });
    markInput.current?.select();
  }, [script?.submission_id, question?.question_id, sheetOpen, loaded]);

  const actions: Record<MarkingAction, (pressed: string) => void> = {
    typeMark: (digit) => {
      if (locked) return;
      markInput.current?.focus();
      change({ mark: markText + digit });
    },
    applyItem: (digit) => toggleItem(itemIndexOfKey(digit)),
    noMarks,
    confirm: confirmAndAdvance,
    nextQuestion: () => goToQuestion(questionIndex + 1),
    previousQuestion: () => goToQuestion(questionIndex - 1),
    nextScript: () => goToScript(scriptIndex + 1),
    previousScript: () => goToScript(scriptIndex - 1),
    // A second mark has no comment: these keys go back to the mark.
    writeComment: () => markInput.current?.focus(),
    backToMark: () => markInput.current?.focus(),
    showShortcuts: () => setSheetOpen(true),
    annotateTick: annotations.keys.tick,
    annotateCross: annotations.keys.cross,
    annotateText: annotations.keys.text,
    annotateHighlight: annotations.keys.highlight,
    annotateStamp: () => rubricItems.length > 0 && setStampMenu("keyboard"),
    toAnnotations: annotations.keys.toAnnotations,
    undoAnnotation: annotations.keys.undo,
    redoAnnotation: annotations.keys.redo,
    // A blind second mark is always a person's: there is no automatic mark to undo here.
    undoAutomaticMark: () => undefined,
  };
  useMarkingKeys({ enabled: !sheetOpen, context: { rubric: isRubric, tenthItem: isRubric && !noMarksKey(rubricItems.length) }, markInput, onAction: (action, pressed) => actions[action](pressed) });

  const [body, setBody] = useState<HTMLDivElement | null>(null);
  const bodyHeight = useFillHeight(body, MIN_BODY_HEIGHT);

  const back = <Link href={`/batches/${batchId}/moderation`}>Back to the moderation</Link>;
  if (queue.isPending || (templateId && template.isPending)) return <Loading>Loading the second marking…</Loading>;
  if (queue.isError || template.isError) {
    return (
      <Status tone="error" title="The second marking could not be loaded">
        {errorMessage(queue.error ?? template.error)} {back}
      </Status>
    );
  }
  if (!script || !question || !paperQuestion) {
    return (
      <Status tone="info" title="Nothing to second-mark">
        No script of the sample has a first mark by someone else for you to second-mark. {back}
      </Status>
    );
  }

  const unsaved = Object.entries(errors).filter(([entry]) => entry !== key);
  const label = `Scan of ${script.script_label}`;
  return (
    <div className="marking">
      <header className="marking__bar">
        <Link href={`/batches/${batchId}/moderation`} className="back-link">
          ← Moderation of {queue.data.batch_title}
        </Link>
        <div className="marking__who">
          <h1 className="marking__student">{script.script_label}</h1>
          <span className="muted">
            Script {scriptIndex + 1} of {scripts.length} in the sample
          </span>
          <Badge tone="neutral">Blind second marking</Badge>
        </div>
        <div className="marking__bar-actions">
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
          scriptId={script.submission_id}
          scan={scan}
          placement={placement}
          onPageCount={onPageCount}
          upcoming={upcoming}
          areas={areas}
          covers={[]}
          label={label}
          toolbar={<AnnotationToolbar editor={annotations} stampMenu={stampMenu} onStampMenu={setStampMenu} />}
          renderOverlay={({ scanPage, paperPage, ratio }) => (
            <AnnotationOverlay page={scanPage} paperPage={paperPage} shapes={annotations.shapesOfPage(scanPage)} editor={annotations.overlay} aspect={ratio} />
          )}
        />

        <aside className="marking__panel" aria-label="Second marking">
          <QuestionStrip
            questions={script.questions.map((entry) => ({ id: entry.question_id, label: entry.label }))}
            currentIndex={questionIndex}
            onGo={goToQuestion}
            stateOf={(questionId) => {
              const entry = script.questions.find((item) => item.question_id === questionId);
              const pending = Boolean(drafts[keyOf(script.submission_id, questionId)]);
              return { state: pending ? "draft" : entry?.second_marks != null ? "done" : "todo", marks: entry?.second_marks, unscanned: missingFor(questionId).length > 0 };
            }}
          />
          <QuestionDetails question={{ ...paperQuestion, max_marks: question.max_marks }} rubricItems={rubricItems}
            applied={applied}
            zeroGiven={isRubric && applied.length === 0 && markText.trim() !== ""}
            lastChange={shownChange}
            disabled={locked}
            onToggle={toggleItem}
            onNoMarks={noMarks}
          />
          <div className="marking__entry">
            <UnscannedQuestion questionLabel={question.label} pages={missingFor(question.question_id)} />
            <MarkField
              inputRef={markInput}
              value={markText}
              max={question.max_marks}
              isRubric={isRubric}
              disabled={locked}
              error={error}
              hint={markHint({ isRubric, items: rubricItems, applied: draft?.items ?? (recorded !== null ? undefined : []), maxMarks: question.max_marks, mark: markText })}
              onChange={(value) => change({ mark: value })}
            />
            <div className="marking__confirm-row">
              <Button onClick={confirmAndAdvance} disabled={locked} aria-keyshortcuts={ariaKeyShortcuts("confirm")}>
                Save and next
              </Button>
              <span className="muted" role="status">
                {save.isPending ? "Saving…" : draft ? "Not saved yet" : recorded !== null ? `Second mark: ${recorded}` : ""}
              </span>
            </div>
            {locked ? <Status tone="warning">The batch is signed off: second marks can be read but not changed.</Status> : null}
            {unsaved.length > 0 ? (
              <Status tone="warning" title={`${unsaved.length} second mark${unsaved.length === 1 ? "" : "s"} not saved`}>
                Go back to {unsaved.length === 1 ? "it" : "them"} (the question strip shows them as unsaved) and press Enter again.
              </Status>
            ) : null}
            {finished ? (
              <Status tone="success" title="That was the last script of the sample">
                Every question to second-mark has been through. {back}
              </Status>
            ) : null}
          </div>
        </aside>
      </div>
      <ShortcutSheet open={sheetOpen} onClose={() => setSheetOpen(false)} />
    </div>
  );
}
