/**
 * What a page of a paper holds, as the template reader needs it: its text with positions and the
 * rectangles and lines drawn on it. Points, origin at the page's top left (as displayed). Read from the
 * page's own content by pdfjs (read-paper.ts); this module turns pdfjs's operator list into shapes,
 * and is pure.
 */

export interface TextItem {
  str: string;
  /** Left edge and baseline, in points from the top left. */
  x: number;
  baseline: number;
  width: number;
  /** The font's size (points). */
  size: number;
}

/** An axis-aligned rectangle in points from the top left. */
export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** A horizontal line: from `left` to `right` at `y`. */
export interface HLine {
  left: number;
  right: number;
  y: number;
}

export interface PageContent {
  page: number;
  width: number;
  height: number;
  texts: TextItem[];
  /** Closed rectangles (stroked or filled), and small closed curves (round tick boxes) by their bounds. */
  boxes: (Box & { round: boolean })[];
  hLines: HLine[];
  vLines: { top: number; bottom: number; x: number }[];
}

/** pdfjs's operator numbers this module reads (OPS of pdfjs-dist). */
export interface Ops {
  save: number;
  restore: number;
  transform: number;
  constructPath: number;
  endPath: number;
}

/** pdfjs's path buffer codes (DrawOPS of pdfjs-dist 5). */
const MOVE_TO = 0;
const LINE_TO = 1;
const CURVE_TO = 2;
const CLOSE_PATH = 3;

type Matrix = [number, number, number, number, number, number];
const multiply = (m: Matrix, n: Matrix): Matrix => [
  m[0] * n[0] + m[2] * n[1],
  m[1] * n[0] + m[3] * n[1],
  m[0] * n[2] + m[2] * n[3],
  m[1] * n[2] + m[3] * n[3],
  m[0] * n[4] + m[2] * n[5] + m[4],
  m[1] * n[4] + m[3] * n[5] + m[5],
];

/** Within this many points, two coordinates are the same (a line's two ends, a rectangle's sides). */
const SAME = 0.75;
/** Thinner than this (points), a filled rectangle is a line. */
const THIN = 2;

/**
 * The shapes drawn by a page's operator list. `toPage` maps a point of the PDF's default user space to
 * the displayed page (pdfjs's viewport at scale 1). Paths are read with the transformation they were
 * drawn under; a path that only clips (endPath) draws nothing and is skipped. At most `maxShapes`
 * shapes are kept (a page with more is no exam paper's page, and the rest are ignored).
 */
export function shapesFromOperators(
  fnArray: ArrayLike<number>,
  argsArray: ArrayLike<unknown>,
  ops: Ops,
  toPage: (x: number, y: number) => [number, number],
  maxShapes = 5000,
): Pick<PageContent, "boxes" | "hLines" | "vLines"> {
  const boxes: PageContent["boxes"] = [];
  const hLines: HLine[] = [];
  const vLines: PageContent["vLines"] = [];
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  const stack: Matrix[] = [];
  const point = (x: number, y: number): [number, number] => toPage(ctm[0] * x + ctm[2] * y + ctm[4], ctm[1] * x + ctm[3] * y + ctm[5]);
  const full = () => boxes.length + hLines.length + vLines.length >= maxShapes;

  for (let index = 0; index < fnArray.length && !full(); index++) {
    const fn = fnArray[index];
    const args = argsArray[index] as unknown[] | null;
    if (fn === ops.save) stack.push(ctm);
    else if (fn === ops.restore) ctm = stack.pop() ?? [1, 0, 0, 1, 0, 0];
    else if (fn === ops.transform && args && args.length === 6 && args.every((value) => typeof value === "number" && Number.isFinite(value))) ctm = multiply(ctm, args as Matrix);
    else if (fn === ops.constructPath && args) {
      const [paint, buffers] = args as [number, (Float32Array | null)[] | undefined];
      if (paint === ops.endPath) continue;
      const buffer = buffers?.[0];
      if (!(buffer instanceof Float32Array)) continue;
      for (const subpath of subpaths(buffer)) {
        const points = subpath.points.map(([x, y]) => point(x, y));
        addShape(points, subpath.curved, subpath.closed, { boxes, hLines, vLines });
      }
    }
  }
  return { boxes, hLines, vLines };
}

interface Subpath {
  points: [number, number][];
  curved: boolean;
  closed: boolean;
}

function subpaths(buffer: Float32Array): Subpath[] {
  const result: Subpath[] = [];
  let current: Subpath | null = null;
  for (let at = 0; at < buffer.length; ) {
    const op = buffer[at++];
    if (op === MOVE_TO) {
      current = { points: [[buffer[at]!, buffer[at + 1]!]], curved: false, closed: false };
      result.push(current);
      at += 2;
    } else if (op === LINE_TO) {
      current?.points.push([buffer[at]!, buffer[at + 1]!]);
      at += 2;
    } else if (op === CURVE_TO) {
      if (current) {
        current.curved = true;
        for (let k = 0; k < 6; k += 2) current.points.push([buffer[at + k]!, buffer[at + k + 1]!]);
      }
      at += 6;
    } else if (op === CLOSE_PATH) {
      if (current) current.closed = true;
    } else break;
  }
  return result;
}

function addShape(points: [number, number][], curved: boolean, closed: boolean, into: Pick<PageContent, "boxes" | "hLines" | "vLines">) {
  if (points.length < 2) return;
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  const bounds = { left: Math.min(...xs), top: Math.min(...ys), right: Math.max(...xs), bottom: Math.max(...ys) };
  if (![bounds.left, bounds.top, bounds.right, bounds.bottom].every(Number.isFinite)) return;
  const w = bounds.right - bounds.left;
  const h = bounds.bottom - bounds.top;
  if (curved) {
    // A closed curve (an ellipse drawn as four Béziers): a round box by its bounds.
    if (closed || near(points[0]!, points.at(-1)!)) into.boxes.push({ ...bounds, round: true });
    return;
  }
  const axisAligned = points.every((p, index) => index === 0 || Math.abs(p[0] - points[index - 1]![0]) < SAME || Math.abs(p[1] - points[index - 1]![1]) < SAME);
  if (!axisAligned) return;
  const distinct = points.filter((p, index) => index === 0 || !near(p, points[index - 1]!));
  const ring = distinct.length > 1 && near(distinct[0]!, distinct.at(-1)!) ? distinct.slice(0, -1) : distinct;
  if ((closed || ring.length < distinct.length) && ring.length === 4) {
    if (h < THIN && w >= THIN) into.hLines.push({ left: bounds.left, right: bounds.right, y: (bounds.top + bounds.bottom) / 2 });
    else if (w < THIN && h >= THIN) into.vLines.push({ top: bounds.top, bottom: bounds.bottom, x: (bounds.left + bounds.right) / 2 });
    else if (w >= THIN && h >= THIN) into.boxes.push({ ...bounds, round: false });
    return;
  }
  // Open polylines: each straight segment on its own.
  for (let index = 1; index < distinct.length; index++) {
    const [a, b] = [distinct[index - 1]!, distinct[index]!];
    if (Math.abs(a[1] - b[1]) < SAME && Math.abs(a[0] - b[0]) >= THIN) into.hLines.push({ left: Math.min(a[0], b[0]), right: Math.max(a[0], b[0]), y: (a[1] + b[1]) / 2 });
    else if (Math.abs(a[0] - b[0]) < SAME && Math.abs(a[1] - b[1]) >= THIN) into.vLines.push({ top: Math.min(a[1], b[1]), bottom: Math.max(a[1], b[1]), x: (a[0] + b[0]) / 2 });
  }
}

const near = (a: [number, number], b: [number, number]) => Math.abs(a[0] - b[0]) < SAME && Math.abs(a[1] - b[1]) < SAME;
