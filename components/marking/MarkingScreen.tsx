"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import type { inferRouterOutputs } from "@trpc/server";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { preload } from "react-dom";
import { Button } from "@/components/ui/Button";
import { Spinner } from "@/components/ui/Spinner";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Status } from "@/components/ui/Status";
import { useTRPC, useTRPCClient } from "@/lib/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";
import type { AppRouter } from "@/server/trpc/root";
import { type Draft, type Drafts, draftKey, loadDrafts, parseMark, storeDrafts } from "./drafts";
import { DictationButton } from "./DictationButton";
import { MarkScheme } from "./MarkScheme";
import { pdfWorkerPort } from "./pdf-worker";
import type { HighlightArea } from "./ScanViewer";
import { ShortcutSheet } from "./ShortcutSheet";
import { useFillHeight } from "@/components/ui/use-fill-height";

// pdf.js runs in the browser only. There, its chunk and its worker are asked for as soon as this module
// runs (before the page has hydrated), so they download while the scan's bytes do.
const loadScanViewer = () => import("./ScanViewer");
if (typeof window !== "undefined") {
  pdfWorkerPort();
  void loadScanViewer();
}
const ScanViewer = dynamic(loadScanViewer, {
  ssr: false,
  loading: () => (
    <p className="loading-line" role="status">
      <Spinner /> Opening the scan…
    </p>
  ),
});

type RouterOutputs = inferRouterOutputs<AppRouter>;

/** Autosave waits this long after the last keystroke. */
/** Below this the marking screen stops shrinking and the page scrolls instead (a phone, a split screen). */
const MIN_BODY_HEIGHT = 448;
const AUTOSAVE_DELAY_MS = 800;
/** Retries of a failed save (network or server error) before it shows as an error. */
const SAVE_RETRIES = 3;

/** By student: every question of one script, then the next script. By question: one question across every script (as Gradescope does). */
export type MarkingMode = "student" | "question";

type SaveState = { state: "saving" } | { state: "saved" } | { state: "error"; message: string };

const scanQueryKey = (submissionId: string) => ["markbook", "submission-scan", submissionId] as const;

const scanPath = (submissionId: string) => `/api/exam/submissions/${submissionId}/scan`;

async function fetchScan(submissionId: string): Promise<ArrayBuffer> {
  // Same mode and credentials as the preload in MarkingScreen (cors, same-origin), so it is reused.
  const response = await fetch(scanPath(submissionId), { credentials: "same-origin" });
  if (!response.ok) {
    const detail = ((await response.json().catch(() => null)) as { detail?: string } | null)?.detail;
    throw new Error(detail ?? `The scan could not be loaded (HTTP ${response.status})`);
  }
  return response.arrayBuffer();
}

const isTextEntry = (target: EventTarget | null) =>
  target instanceof HTMLTextAreaElement || (target instanceof HTMLInputElement && target.type !== "checkbox" && target.type !== "radio");

/**
 * The marking screen, by student: the script on the left scrolled to the current question's answer
 * area; the question, its mark scheme, the mark and a comment on the right. Keyboard-first (see the
 * shortcut sheet). Everything typed is a draft in sessionStorage until the server has it; saves retry,
 * then show an error with a Retry button.
 */
export function MarkingScreen({
  batchId,
  initialSubmissionId,
  initialMode = "student",
  initialQueue,
  initialTemplate,
}: {
  batchId: string;
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
  const client = useTRPCClient();
  const queryClient = useQueryClient();
  const queue = useQuery({ ...trpc.exam.batches.queue.queryOptions({ batch_id: batchId }), refetchInterval: 10_000, initialData: initialQueue });
  const templateId = queue.data?.batch.template_id;
  const template = useQuery({
    ...trpc.exam.templates.get.queryOptions({ template_id: templateId ?? "" }),
    enabled: Boolean(templateId),
    staleTime: 5 * 60_000,
    initialData: initialTemplate?.id === templateId ? initialTemplate : undefined,
  });

  const scripts = useMemo(() => (queue.data?.submissions ?? []).filter((s) => s.scan_url), [queue.data]);
  const questions = useMemo(
    () => (template.data?.questions ?? []).filter((q) => !q.is_container).sort((a, b) => a.order - b.order || a.label.localeCompare(b.label)),
    [template.data],
  );

  const [submissionId, setSubmissionId] = useState<string | null>(initialSubmissionId);
  const [questionIndex, setQuestionIndex] = useState(0);
  const [drafts, setDrafts] = useState<Drafts>({});
  const [saves, setSaves] = useState<Record<string, SaveState>>({});
  const [inputError, setInputError] = useState<string | null>(null);
  const [sheetOpen, setSheetOpen] = useState(false);
  const [finished, setFinished] = useState(false);
  const [mode, setMode] = useState<MarkingMode>(initialMode);
  const markInput = useRef<HTMLInputElement>(null);
  const dictationBase = useRef<{ key: string; text: string } | null>(null);
  const commentInput = useRef<HTMLTextAreaElement>(null);
  // The drafts as of now (state lags a render behind): every change goes through updateDrafts, so a
  // save finishing between two keystrokes can never bring back a draft it already removed.
  const draftsRef = useRef(drafts);
  const updateDrafts = useCallback((change: (all: Drafts) => Drafts) => {
    draftsRef.current = change(draftsRef.current);
    setDrafts(draftsRef.current);
  }, []);
  const inFlight = useRef(new Set<string>());
  const again = useRef(new Set<string>());
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());

  useEffect(() => updateDrafts(() => loadDrafts(batchId)), [batchId, updateDrafts]);
  // Stores the ref, which the load above has already filled: the state is still empty in the first
  // render's effects, and storing it would wipe the drafts of the tab before they are sent again.
  useEffect(() => storeDrafts(batchId, draftsRef.current), [batchId, drafts]);

  // Default to the first script that still needs marking.
  useEffect(() => {
    if (scripts.length === 0) return;
    if (!submissionId || !scripts.some((s) => s.id === submissionId)) {
      setSubmissionId((scripts.find((s) => s.status !== "complete") ?? scripts[0])!.id);
    }
  }, [scripts, submissionId]);

  const scriptIndex = scripts.findIndex((s) => s.id === submissionId);
  const script = scriptIndex >= 0 ? scripts[scriptIndex] : undefined;
  const question = questions[Math.min(questionIndex, Math.max(0, questions.length - 1))];
  // Where Enter leads after this script: the next one; by question, after the last script, the first
  // one again (at the next question).
  const wrapsAround = mode === "question" && scriptIndex > 0 && scriptIndex === scripts.length - 1;
  const nextScript = scriptIndex >= 0 ? (scripts[scriptIndex + 1] ?? (wrapsAround ? scripts[0] : undefined)) : undefined;
  const previousScript = scriptIndex > 0 ? scripts[scriptIndex - 1] : undefined;

  // The submission in the address is fetched at once, without waiting for the queue to list it.
  const marksQuery = useQuery({ ...trpc.exam.marks.forSubmission.queryOptions({ submission_id: submissionId ?? "" }), enabled: Boolean(submissionId) });
  const scan = useQuery({ queryKey: scanQueryKey(submissionId ?? ""), queryFn: () => fetchScan(submissionId!), enabled: Boolean(submissionId), staleTime: Infinity });
  // The scripts on either side: their bytes (the viewer opens and paints the next one ahead) and the
  // next one's marks, so moving on is instant.
  const nextScan = useQuery({ queryKey: scanQueryKey(nextScript?.id ?? ""), queryFn: () => fetchScan(nextScript!.id), enabled: Boolean(nextScript), staleTime: Infinity });
  const previousScan = useQuery({ queryKey: scanQueryKey(previousScript?.id ?? ""), queryFn: () => fetchScan(previousScript!.id), enabled: false, staleTime: Infinity });
  useEffect(() => {
    if (nextScript) void queryClient.prefetchQuery(trpc.exam.marks.forSubmission.queryOptions({ submission_id: nextScript.id }));
  }, [nextScript, queryClient, trpc]);

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

  const recordedHere = question && submissionId ? marksQuery.data?.marks.find((m) => m.question_id === question.id) : undefined;
  const key = question && submissionId ? draftKey(submissionId, question.id) : null;
  const draft = key ? drafts[key] : undefined;
  const markText = draft?.mark ?? (recordedHere?.awarded_marks != null ? String(recordedHere.awarded_marks) : "");
  const commentText = draft?.comment ?? recordedHere?.comment ?? "";

  const save = useCallback(
    async (saveKey: string) => {
      if (inFlight.current.has(saveKey)) {
        again.current.add(saveKey);
        return;
      }
      const pending = draftsRef.current[saveKey];
      if (!pending) return;
      const [forSubmission, questionId] = saveKey.split(":") as [string, string];
      const max = questions.find((q) => q.id === questionId)?.max_marks ?? null;
      const parsed = pending.mark.trim() === "" ? null : parseMark(pending.mark, max);
      if (parsed && "error" in parsed) {
        setSaves((all) => ({ ...all, [saveKey]: { state: "error", message: parsed.error } }));
        return;
      }
      inFlight.current.add(saveKey);
      setSaves((all) => ({ ...all, [saveKey]: { state: "saving" } }));
      let failure: unknown = null;
      for (let attempt = 0; attempt <= SAVE_RETRIES; attempt++) {
        try {
          const mark = await client.exam.marks.upsert.mutate({
            mark_id: pending.markId,
            body: {
              submission_id: forSubmission,
              question_id: questionId,
              awarded_marks: parsed ? parsed.value : null,
              comment: pending.comment.trim() === "" ? null : pending.comment,
              ...(pending.confirm ? { confirmed: true } : {}),
            },
          });
          queryClient.setQueryData(trpc.exam.marks.forSubmission.queryKey({ submission_id: forSubmission }), (old) =>
            old ? { ...old, marks: [...old.marks.filter((m) => m.question_id !== questionId), mark] } : old,
          );
          updateDrafts((all) => {
            if (all[saveKey]?.revision !== pending.revision) return all;
            const { [saveKey]: _saved, ...rest } = all;
            return rest;
          });
          setSaves((all) => ({ ...all, [saveKey]: { state: "saved" } }));
          failure = null;
          break;
        } catch (error) {
          failure = error;
          const status = error instanceof TRPCClientError ? (error.data as { httpStatus?: number } | undefined)?.httpStatus : undefined;
          if (status !== undefined && status < 500) break; // the server refused it: asking again will not help
          await new Promise((resolve) => setTimeout(resolve, 400 * 2 ** attempt));
        }
      }
      if (failure) setSaves((all) => ({ ...all, [saveKey]: { state: "error", message: errorMessage(failure) } }));
      inFlight.current.delete(saveKey);
      void queryClient.invalidateQueries({ queryKey: trpc.exam.batches.queue.queryKey({ batch_id: batchId }) });
      if (again.current.delete(saveKey)) void save(saveKey);
    },
    [batchId, client, queryClient, questions, trpc, updateDrafts],
  );

  // Drafts left by a reload or a failed request: send them again once the questions are known.
  const resent = useRef(false);
  useEffect(() => {
    if (resent.current || questions.length === 0) return;
    resent.current = true;
    Object.keys(draftsRef.current).forEach((k) => void save(k));
  }, [batchId, questions.length, save]);

  function edit(change: Partial<Pick<Draft, "mark" | "comment">>) {
    if (!key || !question || !submissionId) return;
    setInputError(null);
    setFinished(false);
    const base: Draft = draftsRef.current[key] ?? {
      markId: recordedHere?.id ?? crypto.randomUUID(),
      mark: markText,
      comment: commentText,
      confirm: recordedHere?.confirmed ?? false,
      revision: 0,
    };
    const next = { ...base, ...change, revision: base.revision + 1 };
    updateDrafts((all) => ({ ...all, [key]: next }));
    const timer = timers.current.get(key);
    if (timer) clearTimeout(timer);
    const saveKey = key;
    // An incomplete mark ("1.") waits for the next keystroke or Enter; a comment alone is saved.
    timers.current.set(saveKey, setTimeout(() => {
      timers.current.delete(saveKey);
      const current = draftsRef.current[saveKey];
      if (current && (current.mark.trim() === "" || /^\d+(\.\d{1,2})?$/.test(current.mark.trim()))) void save(saveKey);
    }, AUTOSAVE_DELAY_MS));
  }

  const goToQuestion = useCallback((index: number) => {
    setInputError(null);
    setQuestionIndex(Math.max(0, Math.min(index, questions.length - 1)));
  }, [questions.length]);

  const goToScript = useCallback(
    (index: number, keepQuestion = mode === "question") => {
      const target = scripts[index];
      if (!target) return;
      setInputError(null);
      setSubmissionId(target.id);
      if (!keepQuestion) setQuestionIndex(0);
    },
    [scripts, mode],
  );

  function confirmAndAdvance() {
    if (!key || !question || !submissionId) return;
    const parsed = parseMark(markText, question.max_marks);
    if ("error" in parsed) {
      setInputError(parsed.error);
      markInput.current?.focus();
      return;
    }
    const base: Draft = draftsRef.current[key] ?? { markId: recordedHere?.id ?? crypto.randomUUID(), mark: markText, comment: commentText, confirm: true, revision: 0 };
    const next = { ...base, mark: markText, confirm: true, revision: base.revision + 1 };
    updateDrafts((all) => ({ ...all, [key]: next }));
    const timer = timers.current.get(key);
    if (timer) clearTimeout(timer);
    void save(key);
    if (mode === "student") {
      if (questionIndex < questions.length - 1) goToQuestion(questionIndex + 1);
      else if (scriptIndex < scripts.length - 1) goToScript(scriptIndex + 1, false);
      else setFinished(true);
    } else if (scriptIndex < scripts.length - 1) goToScript(scriptIndex + 1, true);
    else if (questionIndex < questions.length - 1) {
      goToScript(0, true);
      goToQuestion(questionIndex + 1);
    } else setFinished(true);
  }

  // Focus follows the current question: the mark input, its text selected for typing over.
  useEffect(() => {
    if (sheetOpen) return;
    const input = markInput.current;
    if (!input) return;
    input.focus({ preventScroll: true });
    input.select();
  }, [submissionId, questionIndex, sheetOpen, question?.id, mode]);

  // Shortcuts listen on the document, so they work wherever focus is (even after a click on the page).
  function onKeyDown(event: KeyboardEvent) {
    if (sheetOpen || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    const inComment = target instanceof HTMLTextAreaElement;
    const inMark = target === markInput.current;
    if (inComment) {
      if (event.key === "Escape") {
        event.preventDefault();
        markInput.current?.focus();
      } else if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        confirmAndAdvance();
      }
      return;
    }
    if (isTextEntry(target) && !inMark) return;
    if (target instanceof HTMLInputElement && target.type === "radio" && event.key.startsWith("Arrow")) return; // arrows choose the marking order
    switch (event.key) {
      case "Enter":
        if (target instanceof HTMLButtonElement || target instanceof HTMLAnchorElement) return;
        event.preventDefault();
        confirmAndAdvance();
        return;
      case "j":
      case "ArrowDown":
        event.preventDefault();
        goToQuestion(questionIndex + 1);
        return;
      case "k":
      case "ArrowUp":
        event.preventDefault();
        goToQuestion(questionIndex - 1);
        return;
      case "]":
        event.preventDefault();
        goToScript(scriptIndex + 1);
        return;
      case "[":
        event.preventDefault();
        goToScript(scriptIndex - 1);
        return;
      case "c":
        event.preventDefault();
        commentInput.current?.focus();
        return;
      case "?":
        event.preventDefault();
        setSheetOpen(true);
        return;
      default:
        if (!inMark && /^[0-9.]$/.test(event.key)) {
          // Digits typed anywhere on the screen go to the mark.
          event.preventDefault();
          markInput.current?.focus();
          edit({ mark: markText + event.key });
        }
    }
  }

  const keyHandler = useRef(onKeyDown);
  keyHandler.current = onKeyDown;
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      if (!event.defaultPrevented) keyHandler.current(event);
    };
    document.addEventListener("keydown", listener);
    return () => document.removeEventListener("keydown", listener);
  }, []);

  // The scan and the panel fill the window down to its bottom edge, whatever sits above them.
  const [body, setBody] = useState<HTMLDivElement | null>(null);
  const bodyHeight = useFillHeight(body, MIN_BODY_HEIGHT);

  const [viewerWidth, setViewerWidth] = useState(600);
  const observer = useRef<ResizeObserver | null>(null);
  const viewerFrame = useCallback((element: HTMLDivElement | null) => {
    observer.current?.disconnect();
    if (!element) return;
    observer.current = new ResizeObserver(([entry]) => {
      if (entry) setViewerWidth(Math.max(280, Math.floor(entry.contentRect.width) - 2));
    });
    observer.current.observe(element);
  }, []);

  const areas: HighlightArea[] = useMemo(
    () => (template.data?.response_areas ?? []).filter((area) => area.question_id === question?.id),
    [template.data, question?.id],
  );
  // The page the next script opens on: its first question's (by student), else this question's or,
  // wrapping around, the next question's.
  const nextPage = useMemo(() => {
    const opensOn = mode === "student" ? questions[0] : wrapsAround ? (questions[questionIndex + 1] ?? question) : question;
    const own = (template.data?.response_areas ?? []).filter((area) => area.question_id === opensOn?.id);
    return (own.find((area) => area.kind === "response") ?? own[0])?.page ?? 1;
  }, [template.data, mode, wrapsAround, question, questionIndex, questions]);
  const upcoming = useMemo(
    () => [
      ...(nextScript ? [{ id: nextScript.id, bytes: nextScan.data, page: nextPage }] : []),
      // Kept while it is in the cache, so going back is instant too.
      ...(previousScript && previousScan.data ? [{ id: previousScript.id, bytes: previousScan.data, page: 1 }] : []),
    ],
    [nextScript, nextScan.data, nextPage, previousScript, previousScan.data],
  );

  if (queue.isPending || (templateId && template.isPending)) {
    return (
      <p className="loading-line" role="status">
        <Spinner /> Loading the marking screen…
      </p>
    );
  }
  if (queue.isError || template.isError) {
    return (
      <Status tone="error" title="The marking screen could not be loaded">
        {errorMessage(queue.error ?? template.error)} <Link href={`/batches/${batchId}`}>Back to the batch</Link>
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

  const saveState = key ? saves[key] : undefined;
  const dirty = Boolean(draft);
  const marksByQuestion = new Map((marksQuery.data?.marks ?? []).map((m) => [m.question_id, m]));
  const unsavedElsewhere = Object.keys(drafts).filter((k) => k !== key).length;
  const archived = queue.data.batch.status === "archived";
  const studentName = script.student_name ?? "Unmatched scan";

  return (
    <div className="marking">
      <header className="marking__bar">
        <Link href={`/batches/${batchId}`} className="back-link">
          ← {queue.data.batch.title}
        </Link>
        <div className="marking__who">
          <h1 className="marking__student">{studentName}</h1>
          <span className="muted">
            Script {scriptIndex + 1} of {scripts.length}
          </span>
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
          <Button variant="secondary" size="small" onClick={() => goToScript(scriptIndex - 1)} disabled={scriptIndex <= 0} aria-keyshortcuts="[">
            ← Previous script
          </Button>
          <Button variant="secondary" size="small" onClick={() => goToScript(scriptIndex + 1)} disabled={scriptIndex >= scripts.length - 1} aria-keyshortcuts="]">
            Next script →
          </Button>
          <Button variant="secondary" size="small" onClick={() => setSheetOpen(true)} aria-keyshortcuts="?">
            Shortcuts <kbd>?</kbd>
          </Button>
        </div>
      </header>

      <div className="marking__body" ref={setBody} style={bodyHeight ? { height: bodyHeight } : undefined}>
        {/* Focusable so keyboard users can scroll the script; the shortcuts keep working from here. */}
        <div className="marking__scan" ref={viewerFrame} aria-label={`Scan of ${studentName}`} role="region" tabIndex={0}>
          {scan.isError ? (
            <LoadFailed what="The scan" error={scan.error} onRetry={() => scan.refetch()} />
          ) : (
            <ScanViewer scan={{ id: script.id, bytes: scan.data }} upcoming={upcoming} width={viewerWidth} areas={areas} label={`Scan of ${studentName}`} />
          )}
        </div>

        <aside className="marking__panel" aria-label="Marking">
          <nav aria-label="Questions" className="question-strip">
            {questions.map((q, index) => {
              const entry = marksByQuestion.get(q.id);
              const pending = Boolean(drafts[draftKey(script.id, q.id)]);
              const state = pending ? "draft" : entry?.confirmed && entry.awarded_marks !== null ? "done" : entry ? "partial" : "todo";
              return (
                <button
                  key={q.id}
                  type="button"
                  className={`question-strip__item question-strip__item--${state}`}
                  aria-current={index === questionIndex ? "step" : undefined}
                  aria-label={`Question ${q.label}${state === "done" ? `, ${entry?.awarded_marks} marks, confirmed` : state === "draft" ? ", unsaved" : ""}`}
                  onClick={() => goToQuestion(index)}
                >
                  {q.label}
                </button>
              );
            })}
          </nav>

          {/* Focusable so keyboard users can scroll a long mark scheme, which scrolls on its own to keep the mark in sight. */}
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
          </section>

          <div className="marking__entry">
            <div className="field marking__mark-field">
              <label className="field__label" htmlFor="mark-input">
                Mark <span className="muted">out of {question.max_marks ?? "–"}</span>
              </label>
              <input
                id="mark-input"
                ref={markInput}
                className="input marking__mark-input"
                inputMode="decimal"
                autoComplete="off"
                value={markText}
                disabled={archived}
                aria-invalid={inputError ? true : undefined}
                aria-describedby={inputError ? "mark-error" : "mark-hint"}
                onChange={(event) => {
                  const value = event.currentTarget.value;
                  if (/^[0-9]*\.?[0-9]{0,2}$/.test(value)) edit({ mark: value });
                }}
              />
              {inputError ? (
                <p className="field__error" id="mark-error" role="alert">
                  {inputError}
                </p>
              ) : (
                <p className="field__hint" id="mark-hint">
                  Enter confirms and moves on.
                </p>
              )}
            </div>
            <div className="field marking__comment-field">
              {/* The microphone sits beside the label, so the comment takes one row less (a tablet's height is short). */}
              <div className="marking__comment-head">
                <label className="field__label" htmlFor="comment-input">
                  Comment <span className="muted">(optional)</span>
                </label>
                <DictationButton
                  disabled={archived}
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
                value={commentText}
                disabled={archived}
                onChange={(event) => edit({ comment: event.currentTarget.value })}
              />
            </div>
            <div className="marking__confirm-row">
              <Button onClick={confirmAndAdvance} disabled={archived} aria-keyshortcuts="Enter">
                Confirm and next
              </Button>
              <SaveIndicator
                state={saveState}
                dirty={dirty}
                confirmed={Boolean(recordedHere?.confirmed) && !dirty}
                onRetry={() => key && void save(key)}
              />
            </div>
            {archived ? <Status tone="warning">This batch is archived: marks can be read but not changed.</Status> : null}
            {unsavedElsewhere > 0 ? (
              <Status tone="warning" title={`${unsavedElsewhere} other mark${unsavedElsewhere === 1 ? "" : "s"} not saved yet`}>
                They are kept in this browser tab and saved as soon as the server answers.
                <Button variant="secondary" size="small" onClick={() => Object.keys(drafts).forEach((k) => void save(k))}>
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
    </div>
  );
}

function SaveIndicator({ state, dirty, confirmed, onRetry }: { state: SaveState | undefined; dirty: boolean; confirmed: boolean; onRetry: () => void }) {
  if (state?.state === "error") {
    return (
      <span className="save-indicator save-indicator--error" role="alert">
        Not saved: {state.message}{" "}
        <Button variant="secondary" size="small" onClick={onRetry}>
          Retry
        </Button>
      </span>
    );
  }
  const text = state?.state === "saving" ? "Saving…" : dirty ? "Unsaved changes" : confirmed ? "Saved and confirmed" : state?.state === "saved" ? "Saved" : "";
  return (
    <span className={`save-indicator save-indicator--${state?.state === "saving" ? "saving" : dirty ? "dirty" : "saved"}`} role="status" aria-live="polite">
      {text}
    </span>
  );
}
