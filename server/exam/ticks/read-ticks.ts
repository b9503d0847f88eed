import { type AreaPlacement, type AreaView, type TemplatePage, WORK_DPI, darknessAt } from "./align";
import type { BoxReading, BoxState, TickAreaReading, TickAreaToRead, TickBoxLayout } from "./reading";

/**
 * Reading the tick boxes of one area of a scanned page, aligned on its template (align.ts): each box's
 * inside, less its printed outline (and anything else the template prints there, a letter in a
 * bubble), is measured for ink relative to the area's paper and the page's black, so faint pencil and
 * a pale copy count alike. Two thresholds with a dead band between them decide each box, and an area
 * is decided only when every box is (docs/decisions/intake-and-scans.md, "Tick boxes and blank answers read from the scan").
 */

export { CORRECTIONS_CONVENTION } from "./convention";

const MM = WORK_DPI / 25.4;
/** Kept clear inside the box's printed outline (beyond the template's printed pixels, already left out): misplacement and blur. */
const INSET = 0.5 * MM;
/** Darkness below this is paper (noise, a copier's haze); from here to FULL_INK it counts in part (pencil), above in full. */
const INK_FROM = 0.08;
const FULL_INK = 0.38;

/** The box's ink (its inside's share) that decides it; between the bands a person looks. */
const TICK_THRESHOLDS = {
  /** Below: empty. */
  emptyBelow: 0.012,
  /** From here to markUntil: a tick or a cross (chosen). */
  markFrom: 0.03,
  markUntil: 0.55,
  /** From here: filled in whole (cancelled). */
  filledFrom: 0.75,
} as const;

/** The fewest pixels of a box's inside (at WORK_DPI) to read it by: a box smaller than ~2.5 mm inside is not read. */
const LEAST_INSIDE = 40;

export function readTickArea(template: TemplatePage, area: TickAreaToRead, placement: AreaPlacement): TickAreaReading {
  const view = placement.view;
  if (!view || area.boxes.length === 0) {
    return { id: area.id, answer: null, boxes: area.boxes.map((box) => ({ label: box.label, state: "uncertain", ink: 0, filled: false })), ...(view ? {} : { reason: "not-aligned" as const }) };
  }
  const boxes = area.boxes.map((box) => readBox(template, view, box));
  const decided = boxes.every((box) => box.state !== "uncertain");
  return { id: area.id, answer: decided ? boxes.filter((box) => box.state === "ticked").map((box) => box.label) : null, boxes };
}

function readBox(template: TemplatePage, view: AreaView, box: TickBoxLayout): BoxReading {
  const { width, height } = template.image;
  const left = box.x * width;
  const top = box.y * height;
  const right = (box.x + box.width) * width;
  const bottom = (box.y + box.height) * height;
  const shift = boxShift(template, view, { left, top, right, bottom });
  if (!shift) return { label: box.label, state: "uncertain", ink: 0, filled: false };
  const cx = (left + right) / 2;
  const cy = (top + bottom) / 2;
  const rx = (right - left) / 2 - INSET;
  const ry = (bottom - top) / 2 - INSET;
  let pixels = 0;
  let ink = 0;
  if (rx > 0 && ry > 0) {
    for (let y = Math.ceil(cy - ry); y <= Math.floor(cy + ry); y++)
      for (let x = Math.ceil(cx - rx); x <= Math.floor(cx + rx); x++) {
        if (box.shape === "round" && ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 > 1) continue;
        if (x < 0 || y < 0 || x >= width || y >= height || template.printed[y * width + x]) continue;
        const darkness = darknessAt(view, x + shift.dx, y + shift.dy);
        if (darkness === undefined) continue;
        pixels++;
        ink += Math.max(0, Math.min(1, (darkness - INK_FROM) / (FULL_INK - INK_FROM)));
      }
  }
  if (pixels < LEAST_INSIDE) return { label: box.label, state: "uncertain", ink: 0, filled: false };
  const share = ink / pixels;
  return { label: box.label, state: stateOf(share), ink: Math.round(share * 1000) / 1000, filled: share >= TICK_THRESHOLDS.filledFrom };
}

/** How far (template pixels) each box's own outline is looked for around where its area's match puts it, and the ring outside it that is paper. */
const BOX_SEARCH = 5;
const BOX_RING = Math.round(1.2 * MM);
/** The least contrast between a box's outline and the paper just outside it. */
const BOX_FLOOR = 0.2;

/**
 * The shift at which a box's printed outline lies on the scan, within BOX_SEARCH of its area's: an area
 * a hand-span wide may be a pixel or two off at its ends (a copier's scale, a page's bow). The outline's
 * core is weighed against the paper in a ring outside the box only (the box's inside holds the answer).
 * Null when the outline is not found.
 */
function boxShift(template: TemplatePage, view: AreaView, box: { left: number; top: number; right: number; bottom: number }): { dx: number; dy: number } | null {
  const { core, ring } = outlinePoints(template, box);
  if (core.length < 40 || ring.length < 40) return null;
  const mean = (points: Int32Array, dx: number, dy: number) => {
    let sum = 0;
    let count = 0;
    for (let i = 0; i < points.length; i += 2) {
      const value = darknessAt(view, points[i]! + dx, points[i + 1]! + dy);
      if (value === undefined) continue;
      sum += value;
      count++;
    }
    return count > points.length / 8 ? sum / count : 0;
  };
  // Every second pixel first (an outline blurs over two or three), then every pixel around the best.
  let best = { dx: 0, dy: 0, score: -Infinity };
  for (let dy = -BOX_SEARCH; dy <= BOX_SEARCH; dy += 2)
    for (let dx = -BOX_SEARCH; dx <= BOX_SEARCH; dx += 2) {
      const score = mean(core, dx, dy) - mean(ring, dx, dy);
      if (score > best.score) best = { dx, dy, score };
    }
  const around = best;
  for (let dy = around.dy - 1; dy <= around.dy + 1; dy++)
    for (let dx = around.dx - 1; dx <= around.dx + 1; dx++) {
      if ((dx === around.dx && dy === around.dy) || Math.abs(dx) > BOX_SEARCH + 1 || Math.abs(dy) > BOX_SEARCH + 1) continue;
      const score = mean(core, dx, dy) - mean(ring, dx, dy);
      if (score > best.score) best = { dx, dy, score };
    }
  return best.score >= BOX_FLOOR ? best : null;
}

/** A box's printed outline (template pixels darker than 150) and the clear paper in a ring outside it, as x, y pairs; kept per template. */
const outlinesKept = new WeakMap<TemplatePage, Map<string, { core: Int32Array; ring: Int32Array }>>();

function outlinePoints(template: TemplatePage, box: { left: number; top: number; right: number; bottom: number }) {
  let kept = outlinesKept.get(template);
  if (!kept) {
    kept = new Map<string, { core: Int32Array; ring: Int32Array }>();
    outlinesKept.set(template, kept);
  }
  const key = `${box.left},${box.top},${box.right},${box.bottom}`;
  const found = kept.get(key);
  if (found) return found;
  const { width, height, data } = template.image;
  const core: number[] = [];
  const ring: number[] = [];
  for (let y = Math.max(0, Math.floor(box.top) - BOX_RING); y <= Math.min(height - 1, Math.ceil(box.bottom) + BOX_RING); y++)
    for (let x = Math.max(0, Math.floor(box.left) - BOX_RING); x <= Math.min(width - 1, Math.ceil(box.right) + BOX_RING); x++) {
      const outside = x < box.left - 1 || x > box.right + 1 || y < box.top - 1 || y > box.bottom + 1;
      if (data[y * width + x]! < 150) core.push(x, y);
      else if (outside && !template.printed[y * width + x]) ring.push(x, y);
    }
  // At most ~300 points of each (pairs evenly spread): enough to place an outline, cheap to search with.
  const spread = (points: number[]) => {
    const step = Math.max(1, Math.ceil(points.length / 2 / 300));
    const kept: number[] = [];
    for (let i = 0; i < points.length; i += 2 * step) kept.push(points[i]!, points[i + 1]!);
    return Int32Array.from(kept);
  };
  const made = { core: spread(core), ring: spread(ring) };
  if (kept.size > 5000) kept.clear();
  kept.set(key, made);
  return made;
}

function stateOf(ink: number): BoxState {
  const t = TICK_THRESHOLDS;
  if (ink < t.emptyBelow) return "empty";
  if (ink >= t.markFrom && ink < t.markUntil) return "ticked";
  // Filled in whole: cancelled, so not chosen (CORRECTIONS_CONVENTION).
  if (ink >= t.filledFrom) return "empty";
  return "uncertain";
}

export function boundsOf(boxes: TickBoxLayout[]) {
  const left = Math.min(...boxes.map((box) => box.x));
  const top = Math.min(...boxes.map((box) => box.y));
  const right = Math.max(...boxes.map((box) => box.x + box.width));
  const bottom = Math.max(...boxes.map((box) => box.y + box.height));
  return { x: left, y: top, width: right - left, height: bottom - top };
}
