"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Button } from "@/components/ui/Button";
import { SelectField } from "@/components/ui/Field";
import { PencilIcon } from "@/components/ui/icons";
import { Status } from "@/components/ui/Status";
import { Loading } from "@/components/ui/Loading";
import { useTRPC } from "@/components/trpc/client";
import { AreaInspector } from "./AreaInspector";
import { EditorHeader } from "./EditorHeader";
import {
  type EditorArea,
  type EditorDocument,
  type EditorQuestion,
  NAME_BOX_ID,
  type Rect,
  acceptAll,
  acceptItem,
  addArea,
  afterSave,
  applyProposal,
  comparableDocument,
  discardProposed,
  dismissWarnings,
  isProposed,
  nextProposed,
  proposedReadyMessage,
  proposedStops,
  addPart,
  addQuestion,
  addTickBox,
  isMultipleChoice,
  moveTickBox,
  parseTickBoxId,
  questionBoxLabels,
  relabelTickBox,
  removeTickBox,
  reshapeTickBox,
  setAnswerType,
  setTickBoxes,
  tickBoxId,
  deleteArea,
  deleteQuestion,
  firstMaxMarksError,
  markSchemeChanges,
  moveQuestion,
  moveQuestionTo,
  newQuestion,
  readyProblem,
  saveBody,
  updateArea,
  updateQuestion,
} from "./editor-state";
import { type EditorDraft, describeChanges, loadEditorDraft, storeEditorDraft, versionOf } from "./editor-drafts";
import { type ServerTemplate, documentFromServer } from "./from-server";
import { PageOverlay } from "./PageOverlay";
import { PaperView } from "./PaperView";
import { ProposalPanel } from "./ProposalPanel";
import { QuestionInspector } from "./QuestionInspector";
import { QuestionTree } from "./QuestionTree";
import type { SaveState } from "./SaveStatus";
import { useTouchCapable } from "./use-touch-capable";
import { errorCode, errorMessage } from "@/lib/trpc/errors";

/** Loads the template, then hands it to the workspace. */
export function TemplateEditor({ templateId, userId }: { templateId: string; userId: string }) {
  const trpc = useTRPC();
  const template = useQuery({ ...trpc.exam.templates.get.queryOptions({ template_id: templateId }), staleTime: Infinity, refetchOnWindowFocus: false });
  if (template.isPending) {
    return <Loading>Loading the template…</Loading>;
  }
  if (template.isError) {
    const missing = errorCode(template.error) === "NOT_FOUND";
    return (
      <div className="page">
        <h1>{missing ? "Template not found" : "The template could not be loaded"}</h1>
        <Status tone="error" title={missing ? "This template does not exist, or it belongs to another school." : errorMessage(template.error)}>
          <Link href="/templates">Back to the templates</Link>
        </Status>
      </div>
    );
  }
  return <Workspace templateId={templateId} userId={userId} initial={template.data} readOnly={template.data.owner_id !== userId} />;
}

type ConflictState = { changes: ReturnType<typeof markSchemeChanges> } | null;

/** How long typing pauses before the draft in this browser is updated. */
const DRAFT_DELAY_MS = 400;

function Workspace({ templateId, userId, initial, readOnly }: { templateId: string; userId: string; initial: ServerTemplate; readOnly: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [saved, setSaved] = useState<EditorDocument>(() => documentFromServer(initial));
  const [doc, setDoc] = useState<EditorDocument>(saved);
  const [selectedQuestionId, setSelectedQuestionId] = useState<string | null>(initial.questions[0]?.id ?? null);
  const [selectedAreaId, setSelectedAreaId] = useState<string | null>(null);
  const [zoom, setZoom] = useState(1);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [conflict, setConflict] = useState<ConflictState>(null);
  const [announcement, setAnnouncement] = useState("");
  /** The question just added: its label field takes the focus once its inspector shows. */
  const [focusLabelOf, setFocusLabelOf] = useState<string | null>(null);
  /** Narrow screens show the paper or the questions, one at a time (CSS ignores this on wider ones). */
  const [view, setView] = useState<"paper" | "questions">("paper");
  const touchCapable = useTouchCapable();
  const [touchDraw, setTouchDraw] = useState(false);
  /** "Name box" is on: the next box drawn is where students write their name. */
  const [drawingNameBox, setDrawingNameBox] = useState(false);
  /** "Draw a box" is on for this area: the next box drawn is one of its tick boxes. */
  const [drawingTickBoxIn, setDrawingTickBoxIn] = useState<string | null>(null);
  const [findProblem, setFindProblem] = useState<string | null>(null);
  /** Why the paper could not be read (the proposal), as a sentence; and Ready refused while items are proposed. */
  const [proposalProblem, setProposalProblem] = useState<string | null>(null);
  const [readyRefused, setReadyRefused] = useState<string | null>(null);
  const proposalAsked = useRef(false);
  const latest = useRef(doc);
  latest.current = doc;
  const sent = useRef<EditorDocument | null>(null);
  // Unsaved work from an earlier visit (a reload, a crash, leaving anyway) is offered once. The
  // workspace renders in the browser only (the template is fetched there), so storage can be read here.
  const [savedVersion, setSavedVersion] = useState(() => versionOf(initial.updated_at));
  const [offeredDraft, setOfferedDraft] = useState<EditorDraft | null>(() =>
    readOnly ? null : loadEditorDraft(userId, templateId, versionOf(initial.updated_at), documentFromServer(initial)),
  );

  const dirty = useMemo(() => JSON.stringify(comparableDocument(doc)) !== JSON.stringify(comparableDocument(saved)), [doc, saved]);
  const stops = useMemo(() => proposedStops(doc), [doc]);
  const labels = useMemo(() => new Map(doc.questions.map((q) => [q.id, q.label])), [doc.questions]);
  const areaCounts = useMemo(() => {
    const counts = new Map<string, number>();
    for (const area of doc.areas) counts.set(area.question_id, (counts.get(area.question_id) ?? 0) + 1);
    return counts;
  }, [doc.areas]);
  const selectedQuestion = doc.questions.find((q) => q.id === selectedQuestionId) ?? null;
  /** Questions that are parts on the server: only those take rubric items (saved at once, not with the canvas). */
  const serverLeaves = useMemo(() => new Set(initial.questions.filter((q) => !q.is_container).map((q) => q.id)), [initial.questions]);
  /** A tick box selected on the paper: its area is the one the inspector shows. */
  const selectedTickBox = parseTickBoxId(selectedAreaId);
  const selectedArea = doc.areas.find((a) => a.id === (selectedTickBox?.areaId ?? selectedAreaId)) ?? null;
  const multipleChoice = useMemo(() => new Set(doc.questions.filter(isMultipleChoice).map((q) => q.id)), [doc.questions]);

  const save = useMutation(trpc.exam.templates.save.mutationOptions());
  const editScheme = useMutation(trpc.exam.questions.editMarkScheme.mutationOptions());
  const findBoxes = useMutation(trpc.exam.templates.findTickBoxes.mutationOptions());
  const propose = useMutation(trpc.exam.templates.propose.mutationOptions());

  /** The item the accept key applies to: the name box when it is selected, else the selected question. */
  const selectedItem = selectedAreaId === NAME_BOX_ID ? NAME_BOX_ID : selectedQuestionId;

  /** Selects a proposed item (a question, or the name box) and brings its area into view on the paper. */
  function selectItem(id: string | null, inDoc: EditorDocument = doc) {
    if (id === null) return;
    if (id === NAME_BOX_ID) {
      setSelectedQuestionId(null);
      setSelectedAreaId(NAME_BOX_ID);
    } else {
      setSelectedQuestionId(id);
      setSelectedAreaId(null);
    }
    const areaId = id === NAME_BOX_ID ? NAME_BOX_ID : inDoc.areas.find((area) => area.question_id === id)?.id;
    if (areaId) window.requestAnimationFrame(() => document.querySelector(`[data-area-id="${areaId}"]`)?.scrollIntoView({ block: "center", behavior: "smooth" }));
  }

  /** "Read the paper": the proposal drawn over it, replacing only what is still proposed; the first item to check selected. */
  async function readPaper() {
    setProposalProblem(null);
    try {
      const proposal = await propose.mutateAsync({ template_id: templateId });
      const next = applyProposal(latest.current, proposal);
      setDoc(next);
      const count = proposedStops(next).length;
      setAnnouncement(count ? `${count} item${count === 1 ? "" : "s"} read from the paper, to check and accept.` : "Nothing new was read from the paper.");
      if (!count && proposal.questions.length === 0) setProposalProblem("No questions could be read from this paper: draw its answer areas on the paper.");
      selectItem(nextProposed(next, null), next);
    } catch (error) {
      setProposalProblem(`The paper could not be read: ${errorMessage(error).replace(/\.$/, "")}. Draw its answer areas on the paper instead.`);
    }
  }

  /** A fresh upload (the paper, no questions yet) opens with the paper read; an earlier visit's draft on offer comes first. */
  useEffect(() => {
    if (readOnly || proposalAsked.current || offeredDraft || !initial.source_file_id || initial.status !== "draft") return;
    if (initial.questions.length > 0 || doc.questions.length > 0) return;
    proposalAsked.current = true;
    // After this render: the reading's state changes come from its reply, not from the effect.
    window.setTimeout(() => void readPaper(), 0);
  });

  /** Shift+A, or "Accept all". */
  function acceptEverything() {
    if (readOnly) return;
    setDoc((current) => acceptAll(current));
    setReadyRefused(null);
    setAnnouncement("Everything read from the paper is accepted.");
  }

  /** The accept key (A): the selected proposed item is the teacher's, and the next one to check is selected. */
  function acceptSelected() {
    if (readOnly) return;
    if (!selectedItem || !isProposed(doc, selectedItem)) return selectItem(nextProposed(doc, selectedItem));
    const next = acceptItem(doc, selectedItem);
    setDoc(next);
    setReadyRefused(null);
    const left = proposedStops(next).length;
    const name = selectedItem === NAME_BOX_ID ? "Name box" : `Question ${labels.get(selectedItem) ?? ""}`;
    setAnnouncement(`${name} accepted. ${left === 0 ? "Everything read from the paper is accepted." : `${left} still proposed.`}`);
    selectItem(nextProposed(next, selectedItem), next);
  }

  /** "Find boxes": the boxes printed in the area on the paper replace the ones it had (nothing is saved until Save). */
  async function findTickBoxes(area: EditorArea) {
    setFindProblem(null);
    try {
      const { boxes } = await findBoxes.mutateAsync({ template_id: templateId, body: { page: area.page, x: area.x, y: area.y, width: area.width, height: area.height } });
      setDoc((current) => setTickBoxes(current, area.id, boxes));
      setAnnouncement(boxes.length ? `Found ${boxes.length} tick box${boxes.length === 1 ? "" : "es"}: ${boxes.map((box) => box.label).join(", ")}.` : "No tick boxes were found in this area.");
      if (!boxes.length) setFindProblem("No printed tick boxes were found in this area: make the area cover them, or draw them.");
    } catch (error) {
      setFindProblem(errorMessage(error));
    }
  }

  const accept = useCallback(
    (result: ServerTemplate) => {
      const fresh = documentFromServer(result);
      setSaved(fresh);
      setSavedVersion(versionOf(result.updated_at));
      // Nothing edited while saving: take the server's normalised copy.
      setDoc((current) => (current === sent.current ? afterSave(fresh, current) : current));
      setSaveError(null);
      setConflict(null);
      void queryClient.invalidateQueries({ queryKey: trpc.exam.templates.list.queryKey() });
      // The save queued a new graph projection.
      void queryClient.invalidateQueries({ queryKey: trpc.exam.templates.graphStatus.queryKey({ template_id: templateId }) });
    },
    [queryClient, trpc, templateId],
  );

  const saveNow = useCallback(async () => {
    if (readOnly || save.isPending) return;
    const typo = firstMaxMarksError(doc) ?? readyProblem(doc);
    if (typo) {
      // Nothing is sent while a field holds what cannot be saved (or Ready lacks a maximum): the teacher is taken to it.
      const proposedLeft = doc.status === "ready" && stops.length > 0;
      setSaveError(
        proposedLeft
          ? `${typo.message} Or keep the template as a Draft, then save.`
          : `${typo.message} ${doc.status === "ready" && typo.question?.max_marks === null ? "Type it, or keep the template as a Draft, then save." : "Correct it, then save."}`,
      );
      if (typo.question) setSelectedQuestionId(typo.question.id);
      return;
    }
    sent.current = doc;
    setSaveError(null);
    try {
      const result = await save.mutateAsync({ template_id: templateId, body: saveBody(doc) });
      // Other screens of this session (marking a batch of it) must not keep the template as it was loaded.
      queryClient.setQueryData(trpc.exam.templates.get.queryKey({ template_id: templateId }), result);
      accept(result);
    } catch (error) {
      if (errorCode(error) === "CONFLICT") {
        setConflict({ changes: markSchemeChanges(saved, doc) });
        setSaveError("Marks are already recorded for this template.");
      } else if (errorCode(error) === "BAD_REQUEST") {
        setSaveError(`${errorMessage(error).replace(/\.$/, "")}. Correct it, then save: your changes are still here.`);
      } else {
        setSaveError(`${errorMessage(error)} Your changes are still here: try saving again.`);
      }
    }
  }, [accept, doc, queryClient, readOnly, save, saved, stops.length, templateId, trpc]);

  /** The 409 way out: template details and mark-scheme edits, which delete nothing. */
  async function saveWhatIsStillPossible() {
    if (!conflict) return;
    try {
      for (const change of conflict.changes) await editScheme.mutateAsync(change);
      // The name box is no part of the canvas: recorded marks do not stop it changing.
      const details = { title: doc.title, subject: doc.subject, status: doc.status, ...(doc.name_box !== undefined && { name_box: doc.name_box }) };
      const result = await save.mutateAsync({ template_id: templateId, body: details });
      queryClient.setQueryData(trpc.exam.templates.get.queryKey({ template_id: templateId }), result);
      const fresh = documentFromServer(result);
      setSaved(fresh);
      setSavedVersion(versionOf(result.updated_at));
      setDoc(fresh);
      setSaveError(null);
      setConflict(null);
      setAnnouncement("Mark schemes and template details saved; structural changes were discarded.");
    } catch (error) {
      setSaveError(errorMessage(error));
    }
  }

  // Ctrl/⌘+S saves; Delete removes the selected area unless typing in a field.
  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") {
        event.preventDefault();
        void saveNow();
        return;
      }
      const target = event.target as HTMLElement | null;
      const typing = target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
      if (!typing && event.key === "Escape" && drawingNameBox) {
        setDrawingNameBox(false);
        return;
      }
      if (!typing && event.key === "Escape" && drawingTickBoxIn) {
        setDrawingTickBoxIn(null);
        return;
      }
      if (!typing && !readOnly && event.key === "Escape" && selectedQuestionId && !target?.closest("dialog, [role=dialog]")) {
        // Esc: back to drawing a new question per box.
        drawFor(null);
        return;
      }
      if (!typing && !readOnly && (event.key === "a" || event.key === "A") && !event.ctrlKey && !event.metaKey && !event.altKey && stops.length > 0 && !target?.closest("dialog, [role=dialog]")) {
        event.preventDefault();
        if (event.shiftKey) acceptEverything();
        else acceptSelected();
        return;
      }
      if (!typing && !readOnly && selectedAreaId && (event.key === "Delete" || event.key === "Backspace") && !target?.closest(".area")) {
        event.preventDefault();
        removeArea(selectedAreaId);
      }
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  // Unsaved work is kept in this browser as it changes, and forgotten once saved (not while a draft is on offer).
  useEffect(() => {
    if (readOnly || offeredDraft) return;
    const timer = window.setTimeout(() => storeEditorDraft(userId, templateId, dirty ? doc : null, savedVersion), dirty ? DRAFT_DELAY_MS : 0);
    return () => window.clearTimeout(timer);
  }, [dirty, doc, offeredDraft, readOnly, savedVersion, templateId, userId]);

  // Leaving with unsaved changes asks first: closing or reloading the page, and the app's own links.
  const leaveQuestion = dirty
    ? `“${doc.title || "Untitled template"}” has changes that are not saved: ${describeChanges(saved, doc)}.\n\n` +
      "Leave anyway? They are kept as a draft in this browser only, and offered when you open the template again."
    : null;
  useEffect(() => {
    if (!leaveQuestion) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    const guardLinks = (event: MouseEvent) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
      if (!(link instanceof HTMLAnchorElement) || link.target === "_blank" || link.hasAttribute("download")) return;
      const url = new URL(link.href);
      if (url.origin !== window.location.origin || url.pathname === window.location.pathname) return;
      if (window.confirm(leaveQuestion)) return;
      // Stopped in the capture phase, before the router's own click handler sees it.
      event.preventDefault();
      event.stopPropagation();
    };
    window.addEventListener("beforeunload", warn);
    window.addEventListener("click", guardLinks, true);
    return () => {
      window.removeEventListener("beforeunload", warn);
      window.removeEventListener("click", guardLinks, true);
    };
  }, [leaveQuestion]);

  function selectQuestion(id: string) {
    setSelectedQuestionId(id);
    if (selectedArea && selectedArea.question_id !== id) setSelectedAreaId(null);
  }

  /** "Draw for": the question the next area goes to, or none (a new question is made for it). */
  function drawFor(id: string | null) {
    if (id) return selectQuestion(id);
    setSelectedQuestionId(null);
    setSelectedAreaId(null);
  }

  function selectArea(id: string | null) {
    setSelectedAreaId(id);
    const area = doc.areas.find((a) => a.id === (parseTickBoxId(id)?.areaId ?? id));
    if (area) setSelectedQuestionId(area.question_id);
  }

  /**
   * A box drawn with a question selected is an area of that question; with none selected it becomes a
   * new question, and nothing is selected afterwards, so the next box is a new question too (as the
   * empty state and the hint say). The new area stays selected, to adjust or delete it.
   */
  function createArea(page: number, rect: Rect) {
    if (readOnly) return;
    if (drawingTickBoxIn) {
      const added = addTickBox(doc, drawingTickBoxIn, rect);
      setDrawingTickBoxIn(null);
      if (!added) return setAnnouncement("This question already has 26 tick boxes, A to Z.");
      setDoc(added.doc);
      setSelectedAreaId(tickBoxId(drawingTickBoxIn, added.index));
      setAnnouncement(`Tick box ${added.doc.areas.find((a) => a.id === drawingTickBoxIn)?.tick_boxes?.[added.index]?.label ?? ""} drawn.`);
      return;
    }
    if (drawingNameBox) {
      const replaced = Boolean(doc.name_box);
      setDoc(acceptItem({ ...doc, name_box: { page, ...rect } }, NAME_BOX_ID));
      setDrawingNameBox(false);
      setSelectedAreaId(NAME_BOX_ID);
      setAnnouncement(`Name box ${replaced ? "moved to" : "drawn on"} page ${page}.`);
      return;
    }
    const question: EditorQuestion = selectedQuestion ?? newQuestion(doc.questions);
    const area: EditorArea = { id: crypto.randomUUID(), question_id: question.id, page, kind: "response", response_form: null, ...rect };
    setDoc(addArea(selectedQuestion ? doc : addQuestion(doc, question), area));
    setSelectedAreaId(area.id);
    if (selectedQuestion) {
      setAnnouncement(`Area added to question ${question.label} on page ${page}.`);
    } else {
      setSelectedQuestionId(null);
      setAnnouncement(`Question ${question.label} created for the box on page ${page}.`);
    }
  }

  function changeArea(id: string, rect: Rect) {
    if (readOnly) return;
    const tick = parseTickBoxId(id);
    if (tick) setDoc((current) => moveTickBox(current, tick.areaId, tick.index, rect));
    else if (id === NAME_BOX_ID) setDoc((current) => (current.name_box ? acceptItem({ ...current, name_box: { ...current.name_box, ...rect } }, NAME_BOX_ID) : current));
    else setDoc((current) => updateArea(current, id, rect));
  }

  function removeArea(id: string) {
    const tick = parseTickBoxId(id);
    if (tick) {
      const label = doc.areas.find((a) => a.id === tick.areaId)?.tick_boxes?.[tick.index]?.label;
      setDoc((current) => removeTickBox(current, tick.areaId, tick.index));
      // The area stays selected, so the next box is at hand.
      setSelectedAreaId(tick.areaId);
      setAnnouncement(`Tick box ${label ?? ""} removed.`);
      return;
    }
    if (id === NAME_BOX_ID) {
      setDoc((current) => acceptItem({ ...current, name_box: null }, NAME_BOX_ID));
      setSelectedAreaId(null);
      setAnnouncement("Name box removed.");
      return;
    }
    setDoc((current) => deleteArea(current, id));
    setSelectedAreaId(null);
    setAnnouncement("Area deleted.");
  }

  function onPageCount(count: number) {
    if (doc.page_count === count) return;
    // A template created without a page count learns it from its PDF; it is stored on the next save.
    setDoc((current) => ({ ...current, page_count: count }));
    if (saved.page_count === null) setSaved((current) => ({ ...current, page_count: count }));
  }

  const saveState: SaveState = save.isPending || editScheme.isPending
    ? { kind: "saving" }
    : saveError
      ? { kind: "error", message: saveError }
      : dirty
        ? { kind: "dirty" }
        : { kind: "saved" };

  const hint = readOnly ? (
    "You are viewing a colleague’s template: only its owner can change it."
  ) : drawingTickBoxIn ? (
    <>
      Draw a tick box inside the selected area.{" "}
      <button type="button" className="link-button" onClick={() => setDrawingTickBoxIn(null)}>
        Cancel
      </button>
    </>
  ) : drawingNameBox ? (
    <>
      Draw a box around where students write their name (on the cover, usually).{doc.name_box ? ` It replaces the name box on page ${doc.name_box.page}.` : ""}{" "}
      <button type="button" className="link-button" onClick={() => setDrawingNameBox(false)}>
        Cancel
      </button>
    </>
  ) : touchCapable && !touchDraw ? (
    "Swipe to scroll the paper; to draw with a finger or pen, turn on Draw by touch."
  ) : selectedQuestion ? (
    <>
      Boxes you draw become areas of question {selectedQuestion.label}.{" "}
      <button type="button" className="link-button" onClick={() => drawFor(null)}>
        Draw new questions instead
      </button>
    </>
  ) : (
    "Each box you draw on a page becomes a new question. To add areas to a question, select it first."
  );

  return (
    <div className="editor">
      <EditorHeader
        templateId={templateId}
        doc={doc}
        examCode={initial.exam_code}
        readOnly={readOnly}
        dirty={dirty}
        saveState={saveState}
        onChange={(patch) => {
          // Ready waits for every item read from the paper to be accepted (or deleted): a guess never reaches marking.
          if (patch.status === "ready" && stops.length > 0) {
            setReadyRefused(proposedReadyMessage(stops.length));
            return;
          }
          setReadyRefused(null);
          setDoc((current) => ({ ...current, ...patch }));
        }}
        onSave={() => void saveNow()}
      />
      {saveError ? (
        <Status tone="error" title={conflict ? "The questions and areas were not saved: marks are already recorded" : "The template was not saved"}>
          {conflict ? (
            <>
              <p>
                Teachers have already recorded marks against this template. Replacing its questions and areas would delete those marks, so
                that is refused. You can still change maximum marks, answer types, mark schemes and specification references, and the
                title, subject and status.
              </p>
              <p className="cluster">
                <button type="button" className="button button--primary button--small" onClick={() => void saveWhatIsStillPossible()}>
                  {conflict.changes.length === 0
                    ? "Save only the title, subject and status; discard the rest"
                    : `Save ${conflict.changes.length} mark-scheme change${conflict.changes.length === 1 ? "" : "s"} and the details; discard the rest`}
                </button>
              </p>
            </>
          ) : (
            <p>{saveError}</p>
          )}
        </Status>
      ) : null}
      {readyRefused ? (
        <Status tone="warning" title="The template cannot be Ready yet">
          <p>{readyRefused}</p>
        </Status>
      ) : null}
      {offeredDraft ? (
        <Status
          tone="info"
          title="Unsaved changes from an earlier visit"
          action={
            <span className="cluster">
              <Button
                size="small"
                onClick={() => {
                  setDoc(offeredDraft.doc);
                  setOfferedDraft(null);
                  setAnnouncement("Your unsaved changes are back. Save to keep them.");
                }}
              >
                Restore them
              </Button>
              <Button
                variant="secondary"
                size="small"
                onClick={() => {
                  storeEditorDraft(userId, templateId, null);
                  setOfferedDraft(null);
                }}
              >
                Discard
              </Button>
            </span>
          }
        >
          <p>
            This browser kept changes you made on {new Date(offeredDraft.editedAt).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })} that
            were never saved: {describeChanges(saved, offeredDraft.doc)}.
          </p>
        </Status>
      ) : null}
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
      <div className="editor__view-switch" role="group" aria-label="Show">
        <button type="button" className="editor__view-option" aria-pressed={view === "paper"} onClick={() => setView("paper")}>
          Paper
        </button>
        <button type="button" className="editor__view-option" aria-pressed={view === "questions"} onClick={() => setView("questions")}>
          Questions <span className="editor__view-count">{doc.questions.length}</span>
        </button>
      </div>
      <div className={`editor__workspace editor__workspace--${view}`}>
        <PaperView
          fileId={initial.source_file_id}
          pageCount={doc.page_count}
          zoom={zoom}
          onZoom={setZoom}
          onPageCount={onPageCount}
          hint={hint}
          tools={
            readOnly ? null : (
              <>
                {/* Shown on narrow screens only, where the question tree is in the other view. */}
                <SelectField
                  label="Draw for"
                  fieldClassName="paper__target"
                  value={selectedQuestionId ?? ""}
                  options={[{ value: "", label: "A new question" }, ...doc.questions.map((q) => ({ value: q.id, label: `Question ${q.label}` }))]}
                  onChange={(e) => drawFor(e.currentTarget.value || null)}
                />
                <Button
                  variant="secondary"
                  size="small"
                  className="paper__name-box-tool"
                  aria-pressed={drawingNameBox}
                  onClick={() => setDrawingNameBox((on) => !on)}
                >
                  {doc.name_box ? "Redraw name box" : "Name box"}
                </Button>
                {doc.name_box ? (
                  <Button variant="danger-quiet" size="small" onClick={() => removeArea(NAME_BOX_ID)}>
                    Remove name box
                  </Button>
                ) : null}
                {touchCapable ? (
                  <Button variant="secondary" size="small" className="paper__draw-toggle" aria-pressed={touchDraw} onClick={() => setTouchDraw((on) => !on)}>
                    <PencilIcon size={18} />
                    Draw by touch
                  </Button>
                ) : null}
              </>
            )
          }
          renderOverlay={(page) => (
            <PageOverlay
              page={page}
              areas={doc.areas.filter((a) => a.page === page)}
              nameBox={doc.name_box?.page === page ? doc.name_box : null}
              labels={labels}
              multipleChoice={multipleChoice}
              selectedAreaId={selectedAreaId}
              selectedQuestionId={selectedQuestionId}
              onSelectArea={selectArea}
              onCreateArea={createArea}
              onChangeArea={changeArea}
              onDeleteArea={(id) => !readOnly && removeArea(id)}
              touchDraw={touchDraw && !readOnly}
              drawOverAreas={drawingTickBoxIn !== null}
              proposed={doc.proposed}
            />
          )}
        />
        <aside className="editor__side" aria-label="Questions and areas">
          <ProposalPanel
            reading={propose.isPending}
            problem={proposalProblem}
            count={stops.length}
            toCheck={stops.filter((stop) => stop.confidence === "check").length}
            selectedProposed={selectedItem !== null && isProposed(doc, selectedItem)}
            warnings={doc.warnings ?? []}
            readOnly={readOnly}
            canReadAgain={Boolean(initial.source_file_id) && doc.status === "draft" && (stops.length > 0 || (doc.warnings?.length ?? 0) > 0 || proposalProblem !== null)}
            onAccept={acceptSelected}
            onAcceptAll={acceptEverything}
            onDiscard={() => {
              setDoc((current) => discardProposed(current));
              setSelectedQuestionId(null);
              setSelectedAreaId(null);
              setAnnouncement("What was read from the paper is discarded.");
            }}
            onReadAgain={() => void readPaper()}
            onWarning={(warning) => selectItem(warning.question_id)}
            onDismissWarnings={() => setDoc((current) => dismissWarnings(current))}
          />
          <QuestionTree
            proposed={doc.proposed}
            questions={doc.questions}
            areaCounts={areaCounts}
            selectedId={selectedQuestionId}
            readOnly={readOnly}
            onSelect={selectQuestion}
            onAdd={() => {
              const question = newQuestion(doc.questions);
              setDoc(addQuestion(doc, question));
              selectQuestion(question.id);
              setFocusLabelOf(question.id);
            }}
            onAddPart={(parentId) => {
              const { doc: next, part } = addPart(doc, parentId);
              setDoc(next);
              selectQuestion(part.id);
              setFocusLabelOf(part.id);
            }}
            onMove={(id, direction) => setDoc((current) => moveQuestion(current, id, direction))}
            onDrop={(id, targetId) => setDoc((current) => moveQuestionTo(current, id, targetId))}
          />
          {selectedArea ? (
            <AreaInspector
              area={selectedArea}
              questions={doc.questions}
              readOnly={readOnly}
              touchCapable={touchCapable}
              onChange={(patch) => setDoc((current) => updateArea(current, selectedArea.id, patch))}
              onDelete={() => removeArea(selectedArea.id)}
              tickBoxes={{
                selectedIndex: selectedTickBox?.index ?? null,
                findUnavailable: initial.source_file_id ? null : "Find boxes needs the paper's PDF: add it to the template first.",
                finding: findBoxes.isPending,
                findProblem,
                drawing: drawingTickBoxIn === selectedArea.id,
                onFind: () => void findTickBoxes(selectedArea),
                onAdd: () => {
                  const added = addTickBox(doc, selectedArea.id, null);
                  if (!added) return setAnnouncement("This question already has 26 tick boxes, A to Z.");
                  setDoc(added.doc);
                  setSelectedAreaId(tickBoxId(selectedArea.id, added.index));
                  setAnnouncement("Tick box added at the area's top left: move it with the arrow keys.");
                },
                onDraw: (on) => setDrawingTickBoxIn(on ? selectedArea.id : null),
                onSelect: (index) => setSelectedAreaId(tickBoxId(selectedArea.id, index)),
                onRelabel: (index, label) => setDoc((current) => relabelTickBox(current, selectedArea.id, index, label)),
                onReshape: (index, shape) => setDoc((current) => reshapeTickBox(current, selectedArea.id, index, shape)),
                onRemove: (index) => removeArea(tickBoxId(selectedArea.id, index)),
              }}
            />
          ) : null}
          {selectedQuestion ? (
            <QuestionInspector
              key={selectedQuestion.id}
              focusLabel={focusLabelOf === selectedQuestion.id}
              onLabelFocused={() => setFocusLabelOf(null)}
              question={selectedQuestion}
              questions={doc.questions}
              readOnly={readOnly}
              rubric={{ templateId, items: initial.rubric_items, savedLeaf: serverLeaves.has(selectedQuestion.id) }}
              onChange={(patch) => setDoc((current) => updateQuestion(current, selectedQuestion.id, patch))}
              onAnswerType={(answerType) => setDoc((current) => setAnswerType(current, selectedQuestion.id, answerType))}
              boxLabels={questionBoxLabels(doc, selectedQuestion.id)}
              onDelete={() => {
                setDoc((current) => deleteQuestion(current, selectedQuestion.id));
                setSelectedQuestionId(null);
                setSelectedAreaId(null);
                setAnnouncement(`Question ${selectedQuestion.label} deleted.`);
              }}
            />
          ) : null}
        </aside>
      </div>
    </div>
  );
}
