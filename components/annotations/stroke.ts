/*
 * A pen stroke as the pointer gave it, made into what is saved: its points kept inside the page,
 * simplified (Ramer–Douglas–Peucker: a point is dropped when the line without it stays within the
 * tolerance), and split into strokes of at most MAX_STROKE_POINTS points that join end to start, so a
 * long stroke is never refused (lib/rules/annotation.ts allows 2 to 4000 points). Pure.
 */

import type { StrokePoint } from "./shapes";

/** The most points one saved stroke has (the rules' bound). */
export const MAX_STROKE_POINTS = 4000;
/** How far (a fraction of the page's width: about 0.2 mm on A4) the simplified line may stray from the drawn one. */
const STROKE_TOLERANCE = 0.001;

/** Points simplified together at most (see strokesToSave). */
const SIMPLIFY_WINDOW = 256;

const clamp01 = (value: number) => (Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0);

/** The distance from p to the segment a–b, y in units of the page's width. */
function distance(p: StrokePoint, a: StrokePoint, b: StrokePoint, aspect: number): number {
  const [px, py] = [p[0], p[1] * aspect];
  const [ax, ay] = [a[0], a[1] * aspect];
  const [bx, by] = [b[0], b[1] * aspect];
  const lengthSquared = (bx - ax) ** 2 + (by - ay) ** 2;
  const t = lengthSquared === 0 ? 0 : Math.min(1, Math.max(0, ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / lengthSquared));
  return Math.hypot(px - (ax + t * (bx - ax)), py - (ay + t * (by - ay)));
}

/**
 * The points of a stroke with those the line does not need dropped: the first and last are kept, and
 * every point dropped lies within `tolerance` of the line kept. Iterative (a stroke of a minute's
 * drawing would overflow a recursion).
 */
export function simplifyStroke(points: readonly StrokePoint[], tolerance = STROKE_TOLERANCE, aspect = Math.SQRT2): StrokePoint[] {
  if (points.length <= 2) return [...points];
  const keep = new Uint8Array(points.length);
  keep[0] = 1;
  keep[points.length - 1] = 1;
  const spans: [number, number][] = [[0, points.length - 1]];
  while (spans.length > 0) {
    const [first, last] = spans.pop()!;
    let farthest = -1;
    let farthestDistance = tolerance;
    for (let index = first + 1; index < last; index++) {
      const away = distance(points[index]!, points[first]!, points[last]!, aspect);
      if (away > farthestDistance) {
        farthest = index;
        farthestDistance = away;
      }
    }
    if (farthest === -1) continue;
    keep[farthest] = 1;
    spans.push([first, farthest], [farthest, last]);
  }
  return points.filter((_, index) => keep[index] === 1);
}

/**
 * The strokes to save for the points a pointer drew: inside the page, simplified, at most `max` points
 * each, each ending where the next starts. A tap (one point) is a dot: the point twice. No points, no stroke.
 */
export function strokesToSave(drawn: readonly StrokePoint[], options: { tolerance?: number; aspect?: number; max?: number } = {}): StrokePoint[][] {
  const max = Math.max(2, options.max ?? MAX_STROKE_POINTS);
  const inside = drawn.map(([x, y, pressure]) => [clamp01(x), clamp01(y), clamp01(pressure)] as StrokePoint);
  if (inside.length === 0) return [];
  if (inside.length === 1) return [[inside[0]!, inside[0]!]];
  // Simplified a window at a time (each window's last point starts the next): the time stays linear in
  // the points however the stroke zigzags (a whole-stroke simplification can take n² steps).
  const simple: StrokePoint[] = [inside[0]!];
  for (let start = 0; start < inside.length - 1; start += SIMPLIFY_WINDOW - 1) {
    simple.push(...simplifyStroke(inside.slice(start, start + SIMPLIFY_WINDOW), options.tolerance ?? STROKE_TOLERANCE, options.aspect ?? Math.SQRT2).slice(1));
  }
  const strokes: StrokePoint[][] = [];
  // Each piece starts on the last point of the one before, so the line has no gap.
  for (let start = 0; start < simple.length - 1; start += max - 1) strokes.push(simple.slice(start, start + max));
  return strokes;
}

/** The line's width in CSS pixels for a stroke's pressure (0–1; a mouse reports 0.5): 1 to 4 px. */
export const strokeWidth = (points: readonly StrokePoint[]) => {
  if (points.length === 0) return 2;
  const mean = points.reduce((sum, [, , pressure]) => sum + pressure, 0) / points.length;
  return Math.round((1 + 3 * mean) * 10) / 10;
};

/** An SVG path through the points (in the 0–1 box of the page). */
export const strokePath = (points: readonly (readonly [number, number, ...number[]])[]) =>
  points.map(([x, y], index) => `${index === 0 ? "M" : "L"}${x.toFixed(5)} ${y.toFixed(5)}`).join(" ");
