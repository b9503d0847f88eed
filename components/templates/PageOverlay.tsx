"use client";

import { useRef, useState, type KeyboardEvent, type PointerEvent } from "react";
import { type Confidence, type EditorArea, type NameBox, NAME_BOX_ID, type Rect, MIN_SIZE, clampRect, tickBoxId } from "./editor-state";

type Handle = "n" | "s" | "e" | "w" | "ne" | "nw" | "se" | "sw";
const handles: Handle[] = ["nw", "n", "ne", "e", "se", "s", "sw", "w"];
/** A tick box is a few millimetres across: its corners only, or the handles would hide it. */
const cornerHandles: Handle[] = ["nw", "ne", "se", "sw"];

interface Drag {
  mode: "draw" | "move" | "resize";
  areaId: string | null;
  handle: Handle | null;
  start: { x: number; y: number };
  origin: Rect;
  rect: Rect;
  moved: boolean;
}

interface PageOverlayProps {
  page: number;
  areas: EditorArea[];
  /** The template's name box when it is on this page: drawn apart from the areas, moved and deleted as they are (id NAME_BOX_ID). */
  nameBox: NameBox | null;
  labels: Map<string, string>;
  /** Multiple choice questions: their areas' tick boxes are drawn over the paper, moved, resized and deleted as areas are (ids from tickBoxId). */
  multipleChoice: ReadonlySet<string>;
  selectedAreaId: string | null;
  selectedQuestionId: string | null;
  onSelectArea: (id: string | null) => void;
  onCreateArea: (page: number, rect: Rect) => void;
  onChangeArea: (id: string, rect: Rect) => void;
  onDeleteArea: (id: string) => void;
  /** Whether a finger or pen draws, moves and resizes (on) or scrolls the paper (off, the default). A mouse always draws. */
  touchDraw: boolean;
  /** Drawing a tick box: a drag that starts on an area draws (inside it) instead of moving the area. */
  drawOverAreas?: boolean;
  /** Items read from the paper and not accepted yet (question ids, NAME_BOX_ID): their boxes are dashed, "check" ones in the warning colour. */
  proposed?: Readonly<Record<string, Confidence>>;
}

const rectFromPoints = (a: { x: number; y: number }, b: { x: number; y: number }): Rect => ({
  x: Math.min(a.x, b.x),
  y: Math.min(a.y, b.y),
  width: Math.abs(a.x - b.x),
  height: Math.abs(a.y - b.y),
});

function resized(origin: Rect, handle: Handle, dx: number, dy: number): Rect {
  let left = origin.x;
  let right = origin.x + origin.width;
  let top = origin.y;
  let bottom = origin.y + origin.height;
  if (handle.includes("w")) left += dx;
  if (handle.includes("e")) right += dx;
  if (handle.includes("n")) top += dy;
  if (handle.includes("s")) bottom += dy;
  return rectFromPoints({ x: Math.max(0, left), y: Math.max(0, top) }, { x: Math.min(1, right), y: Math.min(1, bottom) });
}

/** What the overlay draws: a question's area, or the name box. */
interface OverlayBox extends Rect {
  id: string;
  kind: EditorArea["kind"] | "name-box" | "tick-box";
  questionId: string | null;
  label: string;
  description: string;
}

const areaBox = (area: EditorArea, label: string, page: number): OverlayBox => ({
  id: area.id,
  kind: area.kind,
  questionId: area.question_id,
  x: area.x,
  y: area.y,
  width: area.width,
  height: area.height,
  label,
  description: `${area.kind === "context" ? "Context" : "Response"} area of question ${label}, page ${page}`,
});

const nameBoxBox = (box: NameBox, page: number): OverlayBox => ({
  id: NAME_BOX_ID,
  kind: "name-box",
  questionId: null,
  x: box.x,
  y: box.y,
  width: box.width,
  height: box.height,
  label: "Name box",
  description: `Name box, page ${page}`,
});

const tickBoxes = (area: EditorArea, label: string, page: number): OverlayBox[] =>
  (area.tick_boxes ?? []).map((box, index) => ({
    id: tickBoxId(area.id, index),
    kind: "tick-box",
    questionId: area.question_id,
    x: box.x,
    y: box.y,
    width: box.width,
    height: box.height,
    label: box.label,
    description: `Tick box ${box.label} (${box.shape}) of question ${label}, page ${page}`,
  }));

const percent = (rect: Rect) => ({
  left: `${rect.x * 100}%`,
  top: `${rect.y * 100}%`,
  width: `${rect.width * 100}%`,
  height: `${rect.height * 100}%`,
});

/**
 * The drawing surface over one page: drag on empty paper to draw an area; drag an area to move it,
 * its handles to resize it; Delete removes the selected one and arrow keys nudge it (Shift: further).
 * Pointer events, so a mouse, a pen and a finger all work; while `touchDraw` is off a finger or pen
 * scrolls the paper as it would anywhere else, and a tap selects an area (or clears the selection).
 */
export function PageOverlay({ page, areas, nameBox, labels, multipleChoice, selectedAreaId, selectedQuestionId, onSelectArea, onCreateArea, onChangeArea, onDeleteArea, touchDraw, drawOverAreas = false, proposed = {} }: PageOverlayProps) {
  const surface = useRef<HTMLDivElement>(null);
  const [drag, setDrag] = useState<Drag | null>(null);
  const lastPointer = useRef<string>("mouse");
  /** A finger or pen while drawing by touch is off: leave the gesture to the browser (scrolling, zooming). */
  const scrolls = (pointerType: string) => pointerType !== "mouse" && !touchDraw;

  const point = (event: PointerEvent) => {
    const box = surface.current!.getBoundingClientRect();
    return { x: Math.min(1, Math.max(0, (event.clientX - box.left) / box.width)), y: Math.min(1, Math.max(0, (event.clientY - box.top) / box.height)) };
  };

  function begin(event: PointerEvent, mode: Drag["mode"], area: OverlayBox | null, handle: Handle | null = null) {
    lastPointer.current = event.pointerType;
    if (scrolls(event.pointerType) || event.button !== 0) return;
    event.preventDefault();
    event.stopPropagation();
    surface.current!.setPointerCapture(event.pointerId);
    const start = point(event);
    const origin = area ? { x: area.x, y: area.y, width: area.width, height: area.height } : { ...start, width: 0, height: 0 };
    if (area) onSelectArea(area.id);
    setDrag({ mode, areaId: area?.id ?? null, handle, start, origin, rect: origin, moved: false });
  }

  function move(event: PointerEvent) {
    if (!drag) return;
    const here = point(event);
    const dx = here.x - drag.start.x;
    const dy = here.y - drag.start.y;
    let rect: Rect;
    if (drag.mode === "draw") rect = rectFromPoints(drag.start, here);
    else if (drag.mode === "move") rect = clampRect({ ...drag.origin, x: drag.origin.x + dx, y: drag.origin.y + dy });
    else rect = resized(drag.origin, drag.handle!, dx, dy);
    setDrag({ ...drag, rect, moved: drag.moved || Math.abs(dx) > 0.002 || Math.abs(dy) > 0.002 });
  }

  function end() {
    if (!drag) return;
    setDrag(null);
    if (drag.mode === "draw") {
      if (drag.rect.width >= MIN_SIZE && drag.rect.height >= MIN_SIZE) onCreateArea(page, clampRect(drag.rect));
      else onSelectArea(null);
    } else if (drag.moved && drag.areaId) {
      onChangeArea(drag.areaId, clampRect(drag.rect));
    }
  }

  function onAreaKey(event: KeyboardEvent, area: OverlayBox) {
    const step = event.shiftKey ? 0.02 : 0.005;
    const nudges: Record<string, [number, number]> = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    if (event.key === "Delete" || event.key === "Backspace") {
      event.preventDefault();
      onDeleteArea(area.id);
    } else if (event.key === "Escape") {
      onSelectArea(null);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      onSelectArea(area.id);
    } else if (nudges[event.key] && !event.altKey) {
      event.preventDefault();
      const [dx, dy] = nudges[event.key]!;
      onChangeArea(area.id, clampRect({ x: area.x + dx, y: area.y + dy, width: area.width, height: area.height }));
    }
  }

  return (
    <div
      ref={surface}
      className={`page-overlay${drag?.mode === "draw" ? " page-overlay--drawing" : ""}${touchDraw ? " page-overlay--touch-draw" : ""}`}
      data-page={page}
      onPointerDown={(event) => begin(event, "draw", null)}
      onPointerMove={move}
      onPointerUp={end}
      onPointerCancel={() => setDrag(null)}
      // A tap (not a scroll: the browser sends no click after one) on empty paper clears the selection.
      onClick={(event) => scrolls(lastPointer.current) && event.target === surface.current && onSelectArea(null)}
    >
      {[
        ...areas.map((area) => areaBox(area, labels.get(area.question_id) ?? "?", page)),
        ...(nameBox ? [nameBoxBox(nameBox, page)] : []),
        // After the areas: drawn over them, and taken first by a pointer.
        ...areas.filter((area) => multipleChoice.has(area.question_id)).flatMap((area) => tickBoxes(area, labels.get(area.question_id) ?? "?", page)),
      ].map((area) => {
        const selected = area.id === selectedAreaId;
        const linked = !selected && area.kind !== "tick-box" && area.questionId !== null && area.questionId === selectedQuestionId;
        const rect = drag?.areaId === area.id && drag.mode !== "draw" ? drag.rect : area;
        const guess = area.kind === "name-box" ? proposed[NAME_BOX_ID] : area.questionId !== null ? proposed[area.questionId] : undefined;
        return (
          <div
            key={area.id}
            role="button"
            tabIndex={0}
            aria-pressed={selected}
            aria-label={guess ? `${area.description} (proposed${guess === "check" ? ", to check" : ""})` : area.description}
            className={`area area--${area.kind}${selected ? " area--selected" : ""}${linked ? " area--linked" : ""}${guess ? ` area--proposed area--${guess}` : ""}`}
            style={percent(rect)}
            data-area-id={area.id}
            onPointerDown={(event) => (drawOverAreas && area.kind !== "tick-box" ? begin(event, "draw", null) : begin(event, "move", area))}
            onClick={(event) => {
              event.stopPropagation();
              if (scrolls(lastPointer.current)) onSelectArea(area.id);
            }}
            onKeyDown={(event) => onAreaKey(event, area)}
            onFocus={() => selectedAreaId !== area.id && onSelectArea(area.id)}
          >
            <span className="area__label" aria-hidden="true">
              {area.label}
              {guess && area.kind !== "tick-box" ? <span className="area__proposed"> · {guess === "check" ? "check" : "proposed"}</span> : null}
            </span>
            {selected
              ? (area.kind === "tick-box" ? cornerHandles : handles).map((handle) => (
                  <span key={handle} aria-hidden="true" className={`area__handle area__handle--${handle}`} data-handle={handle} onPointerDown={(event) => begin(event, "resize", area, handle)} />
                ))
              : null}
          </div>
        );
      })}
      {drag?.mode === "draw" && drag.rect.width > 0 ? <div className="area area--draft" style={percent(drag.rect)} aria-hidden="true" /> : null}
    </div>
  );
}
