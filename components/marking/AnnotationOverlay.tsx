"use client";

import { type KeyboardEvent as ReactKeyboardEvent, type PointerEvent as ReactPointerEvent, useEffect, useRef, useState } from "react";
import { AnnotationNote, AnnotationShape } from "@/components/annotations/AnnotationShape";
import { type Point, type Rect, type Shape, type StrokePoint, boundsOf, hitTest, isRect, moveGeometry } from "@/components/annotations/shapes";
import { strokePath, strokesToSave } from "@/components/annotations/stroke";

export type Tool = "select" | "tick" | "cross" | "text" | "pen" | "highlight" | "stamp";

/** A note being written on the scan: a new one at a point, or an existing one's words. */
export interface NoteEditing {
  page: number;
  at: Point;
  /** The note edited; a new note when absent. */
  shape?: Shape;
  text: string;
}

/** What a page's overlay is told and calls back (built by use-annotation-editor.ts). */
export interface OverlayEditor {
  tool: Tool;
  readOnly: boolean;
  selectedId: string | null;
  /** A shape whose handle takes focus once drawn (placed from the keyboard). */
  focusId: string | null;
  note: NoteEditing | null;
  describe: (shape: Shape) => string;
  select: (shape: Shape | null) => void;
  /** A new shape of the tool's kind at a point or with a geometry (the page's; `paperPage` finds its question). */
  place: (page: number, paperPage: number | null, geometry: Shape["geometry"], kind?: Shape["kind"]) => Shape | null;
  addStrokes: (page: number, paperPage: number | null, strokes: StrokePoint[][]) => void;
  update: (before: Shape, after: Shape) => void;
  remove: (shape: Shape) => void;
  startNote: (note: NoteEditing) => void;
  finishNote: (text: string | null) => void;
  focused: () => void;
  /** Back to the mark (Esc or Enter on a shape). */
  done: () => void;
}

/** How far a pointer may be from a tick, a cross or a line and still take it (CSS pixels). */
const HIT_PIXELS = 14;
/** Below this (a fraction of the page) a highlight drag is a slip, not a highlight. */
const MIN_HIGHLIGHT = 0.004;
/** A step of the arrow keys, and with Shift. */
const STEP = 0.005;
const BIG_STEP = 0.05;

const percent = (value: number) => `${value * 100}%`;

type Gesture =
  | { kind: "drag"; shape: Shape; from: Point; moved: boolean }
  | { kind: "pen"; points: StrokePoint[] }
  | { kind: "highlight"; from: Point; to: Point }
  | { kind: "tap"; from: Point };

/**
 * The annotations of one page of the scan, over the painted canvas, and the tools drawing on it: a tick,
 * a cross, a note or a stamp where the pointer is let go, a highlight dragged out, a pen stroke (pointer
 * events with pressure, coalesced samples where the browser gives them; the live line is a path updated
 * once a frame through a ref, not a React render per sample). With the select tool a shape is taken and
 * dragged. Every shape also has a handle, a button in the accessible tree that says it in words, which
 * the keyboard selects, moves (arrows), deletes (Delete, Backspace) and edits (Enter on a note).
 * `touch-action: none` only while the pen or the highlighter is in hand: otherwise a finger scrolls.
 */
export function AnnotationOverlay({ page, paperPage, shapes, editor, aspect }: { page: number; paperPage: number | null; shapes: readonly Shape[]; editor: OverlayEditor; aspect: number }) {
  const layer = useRef<HTMLDivElement>(null);
  const box = useRef<DOMRect | null>(null);
  const gesture = useRef<Gesture | null>(null);
  const livePath = useRef<SVGPathElement>(null);
  const liveRect = useRef<SVGRectElement>(null);
  const frame = useRef<number | null>(null);
  const [dragOffset, setDragOffset] = useState<{ id: string; dx: number; dy: number } | null>(null);
  const drawing = !editor.readOnly && (editor.tool === "pen" || editor.tool === "highlight");

  // A shape placed from the keyboard: its handle takes focus, so the arrows move it.
  const focusId = editor.focusId;
  useEffect(() => {
    if (!focusId) return;
    const handle = layer.current?.querySelector<HTMLButtonElement>(`[data-annotation-id="${focusId}"]`);
    if (!handle) return;
    handle.focus({ preventScroll: false });
    editor.focused();
  }, [focusId, shapes, editor]);
  useEffect(() => () => void (frame.current !== null && cancelAnimationFrame(frame.current)), []);

  const pointOf = (event: { clientX: number; clientY: number }): Point => {
    const rect = box.current ?? layer.current!.getBoundingClientRect();
    return { x: Math.min(1, Math.max(0, (event.clientX - rect.left) / rect.width)), y: Math.min(1, Math.max(0, (event.clientY - rect.top) / rect.height)) };
  };

  /** Draws the live stroke or rectangle once per frame, outside React. */
  const paintLive = () => {
    if (frame.current !== null) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = null;
      const current = gesture.current;
      if (current?.kind === "pen") livePath.current?.setAttribute("d", strokePath(current.points));
      if (current?.kind === "highlight" && liveRect.current) {
        const rect = rectBetween(current.from, current.to);
        liveRect.current.setAttribute("x", percent(rect.x));
        liveRect.current.setAttribute("y", percent(rect.y));
        liveRect.current.setAttribute("width", percent(rect.width));
        liveRect.current.setAttribute("height", percent(rect.height));
      }
    });
  };

  function onPointerDown(event: ReactPointerEvent<HTMLDivElement>) {
    if (editor.readOnly || (event.pointerType === "mouse" && event.button !== 0) || editor.note) return;
    box.current = layer.current!.getBoundingClientRect();
    // Focus goes to the scan's frame (the default is prevented below): Ctrl+Z then undoes what was drawn.
    layer.current!.closest<HTMLElement>("[tabindex]")?.focus({ preventScroll: true });
    const at = pointOf(event);
    const tolerance = HIT_PIXELS / box.current.width;
    if (editor.tool === "select") {
      const hit = hitTest(shapes, at, tolerance, aspect);
      editor.select(hit);
      if (!hit) return;
      gesture.current = { kind: "drag", shape: hit, from: at, moved: false };
    } else if (editor.tool === "pen") {
      gesture.current = { kind: "pen", points: [[at.x, at.y, pressureOf(event)]] };
      paintLive();
    } else if (editor.tool === "highlight") {
      gesture.current = { kind: "highlight", from: at, to: at };
      paintLive();
    } else {
      gesture.current = { kind: "tap", from: at };
    }
    event.currentTarget.setPointerCapture(event.pointerId);
    event.preventDefault();
  }

  function onPointerMove(event: ReactPointerEvent<HTMLDivElement>) {
    const current = gesture.current;
    if (!current) return;
    if (current.kind === "pen") {
      // Every sample the pointer took since the last event (a pen gives 120 to 240 a second).
      const samples = event.nativeEvent.getCoalescedEvents?.() ?? [];
      for (const sample of samples.length > 0 ? samples : [event.nativeEvent]) {
        const at = pointOf(sample);
        current.points.push([at.x, at.y, pressureOf(sample)]);
      }
      paintLive();
    } else if (current.kind === "highlight") {
      current.to = pointOf(event);
      paintLive();
    } else if (current.kind === "drag") {
      const at = pointOf(event);
      const dx = at.x - current.from.x;
      const dy = at.y - current.from.y;
      if (!current.moved && Math.hypot(dx, dy * aspect) * (box.current?.width ?? 1) < 3) return;
      current.moved = true;
      setDragOffset({ id: current.shape.id, dx, dy });
    }
  }

  function onPointerUp(event: ReactPointerEvent<HTMLDivElement>) {
    const current = gesture.current;
    gesture.current = null;
    if (!current) return;
    if (event.currentTarget.hasPointerCapture(event.pointerId)) event.currentTarget.releasePointerCapture(event.pointerId);
    if (current.kind === "pen") {
      livePath.current?.setAttribute("d", "");
      editor.addStrokes(page, paperPage, strokesToSave(current.points, { aspect }));
    } else if (current.kind === "highlight") {
      liveRect.current?.setAttribute("width", "0");
      const rect = rectBetween(current.from, pointOf(event));
      if (rect.width >= MIN_HIGHLIGHT && rect.height >= MIN_HIGHLIGHT) editor.place(page, paperPage, rect, "highlight");
    } else if (current.kind === "drag") {
      setDragOffset(null);
      if (!current.moved) return;
      const at = pointOf(event);
      editor.update(current.shape, { ...current.shape, geometry: moveGeometry(current.shape.geometry, at.x - current.from.x, at.y - current.from.y) });
    } else if (editor.tool === "text") {
      editor.startNote({ page, at: current.from, text: "" });
    } else {
      editor.place(page, paperPage, current.from);
    }
  }

  function onPointerCancel() {
    // The browser took the gesture (a scroll): nothing is drawn.
    gesture.current = null;
    setDragOffset(null);
    livePath.current?.setAttribute("d", "");
    liveRect.current?.setAttribute("width", "0");
  }

  function onHandleKeyDown(event: ReactKeyboardEvent<HTMLButtonElement>, shape: Shape) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const step = event.shiftKey ? BIG_STEP : STEP;
    const moves: Record<string, [number, number]> = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    const move = moves[event.key];
    if (move) {
      event.preventDefault();
      if (editor.readOnly) return;
      const geometry = moveGeometry(shape.geometry, move[0], move[1]);
      editor.update(shape, { ...shape, geometry });
    } else if (event.key === "Delete" || event.key === "Backspace") {
      event.preventDefault();
      if (!editor.readOnly) editor.remove(shape);
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (shape.kind === "text" && !editor.readOnly) editor.startNote({ page, at: boundsOf(shape.geometry), shape, text: shape.text ?? "" });
      else editor.done();
    } else if (event.key === "Escape") {
      event.preventDefault();
      editor.done();
    }
  }

  const shown = shapes.map((shape) => (dragOffset?.id === shape.id ? { ...shape, geometry: moveGeometry(shape.geometry, dragOffset.dx, dragOffset.dy) } : shape));
  const selected = shown.find((shape) => shape.id === editor.selectedId);
  const note = editor.note?.page === page ? editor.note : null;

  return (
    <div
      ref={layer}
      className={`annotation-overlay annotation-overlay--${editor.readOnly ? "read-only" : editor.tool}${drawing ? " annotation-overlay--drawing" : ""}`}
      data-testid="annotation-overlay"
      data-scan-page={page}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerCancel}
      onDoubleClick={(event) => {
        if (editor.readOnly || editor.tool !== "select") return;
        const hit = hitTest(shapes, pointOf(event), HIT_PIXELS / (layer.current?.getBoundingClientRect().width ?? 600), aspect);
        if (hit?.kind === "text") editor.startNote({ page, at: boundsOf(hit.geometry), shape: hit, text: hit.text ?? "" });
      }}
    >
      <svg className="script-overlay__shapes" width="100%" height="100%" aria-hidden="true">
        {shown.map((shape) => (
          <AnnotationShape key={shape.id} kind={shape.kind} geometry={shape.geometry} />
        ))}
        {selected ? <SelectionBox geometry={selected.geometry} /> : null}
        <svg x="0" y="0" width="100%" height="100%" viewBox="0 0 1 1" preserveAspectRatio="none" overflow="visible">
          <path ref={livePath} className="script-overlay__pen annotation-overlay__live" vectorEffect="non-scaling-stroke" d="" />
        </svg>
        <rect ref={liveRect} className="script-overlay__highlight" x="0" y="0" width="0" height="0" />
      </svg>
      <div aria-hidden="true">
        {shown
          .filter((shape) => (shape.kind === "text" || shape.kind === "stamp") && shape.text && note?.shape?.id !== shape.id)
          .map((shape) => (
            <AnnotationNote key={shape.id} kind={shape.kind} geometry={shape.geometry} text={shape.text ?? ""} />
          ))}
      </div>
      {shown.map((shape) => {
        const bounds = handleBox(shape);
        return (
          <button
            key={shape.id}
            type="button"
            className="annotation-overlay__handle"
            data-annotation-id={shape.id}
            aria-label={editor.describe(shape)}
            aria-pressed={shape.id === editor.selectedId}
            style={{ left: percent(bounds.x), top: percent(bounds.y), width: percent(bounds.width), height: percent(bounds.height) }}
            onFocus={() => editor.select(shape)}
            onKeyDown={(event) => onHandleKeyDown(event, shape)}
          />
        );
      })}
      {note ? <NoteEditor note={note} onFinish={editor.finishNote} /> : null}
    </div>
  );
}

/** A pen's pressure, 0–1: a mouse or a pen that does not sense it says 0.5 while pressed (0 for a mouse hovering). */
const pressureOf = (event: { pressure?: number }) => (event.pressure && event.pressure > 0 ? event.pressure : 0.5);

function rectBetween(a: Point, b: Point): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.min(Math.abs(b.x - a.x), 1 - x), height: Math.min(Math.abs(b.y - a.y), 1 - y) };
}

/** Where a shape's handle sits: its box, at least about 24 px square around a point. */
function handleBox(shape: Shape): Rect {
  const bounds = boundsOf(shape.geometry);
  const half = 0.02;
  const x = Math.max(0, bounds.x - (bounds.width < 2 * half ? half - bounds.width / 2 : 0));
  const y = Math.max(0, bounds.y - (bounds.height < 2 * half ? half * 0.7 - bounds.height / 2 : 0));
  return { x, y, width: Math.min(1 - x, Math.max(bounds.width, 2 * half)), height: Math.min(1 - y, Math.max(bounds.height, 1.4 * half)) };
}

function SelectionBox({ geometry }: { geometry: Shape["geometry"] }) {
  const bounds = boundsOf(geometry);
  const pad = isRect(geometry) || "points" in geometry ? 0.006 : 0.018;
  return (
    <rect
      className="annotation-overlay__selection"
      x={percent(Math.max(0, bounds.x - pad))}
      y={percent(Math.max(0, bounds.y - pad * 0.7))}
      width={percent(bounds.width + 2 * pad)}
      height={percent(bounds.height + 1.4 * pad)}
    />
  );
}

/** The words of a note on the scan: Enter places them, Esc (or leaving an empty box) drops them. */
function NoteEditor({ note, onFinish }: { note: NoteEditing; onFinish: (text: string | null) => void }) {
  const [text, setText] = useState(note.text);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  return (
    <input
      ref={input}
      className="annotation-overlay__note-input"
      aria-label={note.shape ? "Change the note's words (Enter saves, Esc keeps them as they were)" : "A note on the scan (Enter places it, Esc drops it)"}
      value={text}
      maxLength={2000}
      style={{ left: percent(Math.min(note.at.x, 0.6)), top: percent(note.at.y) }}
      onChange={(event) => setText(event.target.value)}
      onPointerDown={(event) => event.stopPropagation()}
      onKeyDown={(event) => {
        if (event.key === "Enter") {
          event.preventDefault();
          onFinish(text.trim() === "" ? null : text);
        } else if (event.key === "Escape") {
          event.preventDefault();
          onFinish(null);
        }
      }}
      onBlur={() => onFinish(text.trim() === "" ? null : text)}
    />
  );
}
