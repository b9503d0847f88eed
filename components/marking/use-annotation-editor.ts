"use client";

import { useRef, useState } from "react";
import type { AnnotationLayer } from "@/lib/rules/annotation";
import type { NoteEditing, OverlayEditor, Tool } from "./AnnotationOverlay";
import { type PaperArea, type Point, type Shape, type StrokePoint, questionAt, shapeIdsOfQuestion, shapeInWords } from "@/components/annotations/shapes";
import { useAnnotations } from "./use-annotations";

/** A rubric item a stamp can carry. */
export interface StampItem {
  id: string;
  text: string;
}

/** Where the keyboard puts a shape for a question: inside its first response area, ticks and crosses at the top right, notes and stamps at the top left, each next one below. */
const KEY_OFFSET = 0.035;

/**
 * The annotation tools of a marking screen over the script on screen (issue 35, item 1): the tool in
 * hand, the shape selected, a note being written; the keyboard's placing of a shape at the current
 * question's answer (then moved with the arrows); undo and redo; and what a page's overlay is given
 * (AnnotationOverlay.tsx). The shapes and their saving: use-annotations.ts. Each shape carries the
 * question whose response area its anchor lies in, else the question on screen when it was drawn.
 */
export function useAnnotationEditor({
  batchId,
  submissionId,
  layer,
  readOnly,
  question,
  questions,
  areasOfPaper,
  pageNumbers,
  rubricItems,
  onDone,
}: {
  batchId: string;
  submissionId: string | null;
  layer: AnnotationLayer;
  readOnly: boolean;
  /** The question on screen. */
  question: { id: string; label: string } | undefined;
  questions: readonly { id: string; label: string }[];
  /** The paper's areas (on the paper's pages). */
  areasOfPaper: readonly PaperArea[];
  /** The paper's page of each page of the scan (null: in order from page 1). */
  pageNumbers: readonly number[] | null | undefined;
  /** The current question's rubric items, to stamp. */
  rubricItems: readonly StampItem[];
  /** Back to the mark. */
  onDone: () => void;
}) {
  const annotations = useAnnotations({ batchId, submissionId, layer, readOnly });
  const [tool, setTool] = useState<Tool>("select");
  const [stampItem, setStampItem] = useState<StampItem | null>(null);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [focusId, setFocusId] = useState<string | null>(null);
  const [note, setNote] = useState<NoteEditing | null>(null);
  const noteRef = useRef<NoteEditing | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const shapes = annotations.shapes ?? [];

  const labelOf = (questionId: string | undefined) => questions.find((entry) => entry.id === questionId)?.label;
  const paperPageOf = (scanPage: number) => (pageNumbers ? (pageNumbers[scanPage - 1] ?? null) : scanPage);
  const scanPageOf = (paperPage: number) => {
    if (!pageNumbers) return paperPage;
    const index = pageNumbers.indexOf(paperPage);
    return index === -1 ? null : index + 1;
  };
  const questionOf = (paperPage: number | null, point: Point) => questionAt(areasOfPaper, paperPage, point) ?? question?.id;

  const openNote = (next: NoteEditing | null) => {
    noteRef.current = next;
    setNote(next);
  };

  function newShape(page: number, paperPage: number | null, kind: Shape["kind"], geometry: Shape["geometry"], extra: Partial<Shape> = {}): Shape | null {
    if (!submissionId) return null;
    const anchor = "points" in geometry ? { x: geometry.points[0]?.[0] ?? 0, y: geometry.points[0]?.[1] ?? 0 } : "width" in geometry ? { x: geometry.x + geometry.width / 2, y: geometry.y + geometry.height / 2 } : geometry;
    const questionId = kind === "stamp" ? question?.id : questionOf(paperPage, anchor);
    return { id: crypto.randomUUID(), submission_id: submissionId, page, kind, layer, geometry, ...(questionId ? { question_id: questionId } : {}), ...extra };
  }

  function place(page: number, paperPage: number | null, geometry: Shape["geometry"], kind?: Shape["kind"]): Shape | null {
    const placed = kind ?? tool;
    if (readOnly || placed === "select" || placed === "pen") return null;
    if (placed === "stamp" && !stampItem) return null;
    const shape = newShape(page, paperPage, placed, geometry, placed === "stamp" && stampItem ? { rubric_item_id: stampItem.id, text: stampItem.text.slice(0, 2000) } : {});
    if (!shape) return null;
    annotations.add([shape]);
    setSelectedId(shape.id);
    return shape;
  }

  /**
   * Where the keyboard puts a shape for the question on screen: inside the top right of its first
   * response area (on the page of the scan that shows it), below the shapes already put there; or null,
   * with a sentence, when its page was not scanned.
   */
  function keyboardSpot(side: "right" | "left" = "right"): { page: number; paperPage: number; at: Point } | null {
    if (!question) return null;
    const own = areasOfPaper.filter((area) => area.question_id === question.id);
    const area = own.find((candidate) => candidate.kind === undefined || candidate.kind === "response") ?? own[0];
    const paperPage = area?.page ?? 1;
    const page = scanPageOf(paperPage);
    if (page === null) {
      setMessage(`Page ${paperPage} was not scanned: nothing can be put on question ${question.label}'s answer.`);
      return null;
    }
    const already = shapes.filter((shape) => shape.page === page && shape.question_id === question.id).length;
    // Ticks and crosses at the right, notes and stamps (whose words run rightwards) at the left.
    const x = side === "left" ? (area ? area.x + Math.min(0.02, area.width / 2) : 0.05) : area ? Math.max(area.x, area.x + area.width - 0.04) : 0.9;
    const top = area ? area.y + Math.min(0.025, area.height / 2) : 0.1;
    const bottom = area ? area.y + area.height : 0.95;
    const y = Math.min(bottom, top + already * KEY_OFFSET);
    return { page, paperPage, at: { x: Math.min(1, x), y: Math.min(1, y) } };
  }

  /** A shape put from the keyboard at the current question's answer; its handle takes focus (the arrows move it). */
  function placeByKey(kind: "tick" | "cross" | "stamp" | "highlight", item?: StampItem) {
    if (readOnly) return;
    setMessage(null);
    const spot = keyboardSpot(kind === "stamp" ? "left" : "right");
    if (!spot || !question) return;
    let shape: Shape | null;
    if (kind === "highlight") {
      const area = areasOfPaper.find((candidate) => candidate.question_id === question.id && candidate.page === spot.paperPage);
      const rect = area ? { x: area.x, y: area.y, width: area.width, height: area.height } : { x: 0.05, y: spot.at.y, width: 0.9, height: 0.05 };
      shape = newShape(spot.page, spot.paperPage, "highlight", rect, { question_id: question.id });
    } else if (kind === "stamp") {
      shape = item ? newShape(spot.page, spot.paperPage, "stamp", spot.at, { rubric_item_id: item.id, text: item.text.slice(0, 2000) }) : null;
    } else {
      shape = newShape(spot.page, spot.paperPage, kind, spot.at, { question_id: question.id });
    }
    if (!shape) return;
    annotations.add([shape]);
    setSelectedId(shape.id);
    setFocusId(shape.id);
  }

  const overlay: OverlayEditor = {
    tool,
    readOnly,
    selectedId,
    focusId,
    note,
    describe: (shape) => shapeInWords(shape, labelOf(shape.question_id)),
    select: (shape) => setSelectedId(shape?.id ?? null),
    place,
    addStrokes: (page: number, paperPage: number | null, strokes: StrokePoint[][]) => {
      const made = strokes.flatMap((points) => {
        const shape = newShape(page, paperPage, "pen", { points });
        return shape ? [shape] : [];
      });
      annotations.add(made);
    },
    update: (before, after) => annotations.update(before, after),
    remove: (shape) => {
      annotations.remove(shape);
      setSelectedId(null);
      onDone();
    },
    startNote: (next) => {
      if (!readOnly) openNote(next);
    },
    finishNote: (text) => {
      const editing = noteRef.current;
      if (!editing) return;
      openNote(null);
      if (text !== null) {
        if (editing.shape) {
          if (text !== editing.shape.text) annotations.update(editing.shape, { ...editing.shape, text });
        } else {
          const shape = newShape(editing.page, paperPageOf(editing.page), "text", editing.at, { text });
          if (shape) {
            annotations.add([shape]);
            setSelectedId(shape.id);
          }
        }
      }
      onDone();
    },
    focused: () => setFocusId(null),
    done: () => {
      setSelectedId(null);
      onDone();
    },
  };

  const keys = {
    tick: () => placeByKey("tick"),
    cross: () => placeByKey("cross"),
    highlight: () => placeByKey("highlight"),
    stamp: (item: StampItem) => placeByKey("stamp", item),
    text: () => {
      if (readOnly) return;
      const spot = keyboardSpot("left");
      if (spot) openNote({ page: spot.page, at: spot.at, text: "" });
    },
    /** Focus on the selected shape, else the last one of the current question, else of the first page with any. */
    toAnnotations: () => {
      const target = shapes.find((shape) => shape.id === selectedId) ?? [...shapes].reverse().find((shape) => shape.question_id === question?.id) ?? shapes[0];
      if (!target) {
        setMessage("There is no annotation on this script yet.");
        return;
      }
      setMessage(null);
      setFocusId(target.id);
    },
    undo: () => annotations.undo(),
    redo: () => annotations.redo(),
  };

  return {
    ...annotations,
    readOnly,
    tool,
    setTool: (next: Tool) => {
      setTool(next);
      if (next !== "stamp") setStampItem(null);
    },
    stampItem,
    armStamp: (item: StampItem) => {
      setStampItem(item);
      setTool("stamp");
    },
    rubricItems,
    message,
    overlay,
    keys,
    /** The shapes of a page of the scan. */
    shapesOfPage: (page: number) => shapes.filter((shape) => shape.page === page),
    /** The annotations that justify a question's mark on a script, undefined while not known (annotation_shape_ids). */
    shapeIdsOf: (submission: string, questionId: string) => (submission === submissionId && annotations.shapes ? shapeIdsOfQuestion(shapes, submission, questionId) : undefined),
  };
}

export type AnnotationEditor = ReturnType<typeof useAnnotationEditor>;
