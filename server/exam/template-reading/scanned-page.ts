import { findTickBoxesInPage } from "../ticks/find-boxes";
import type { GreyImage } from "../intake/imaging/pdfjs";
import type { TickBox } from "../../../lib/rules/tick-boxes";
import type { ProposedRect } from "./proposal";

/**
 * The template reader on a page with no text (a scanned paper): its answer areas from the page image
 * alone, pure. The page's small turn is measured first (the angle at which its ink lines up best in
 * rows), the ink turned straight, and then: ruled boxes (two horizontal lines of the same extent joined
 * by vertical ones), runs of ruled lines, and rows of tick boxes (server/exam/ticks/find-boxes.ts, on the
 * page as scanned). Each area is given back as the upright rectangle round it on the scanned page. The
 * text (question numbers, marks) is left to the teacher.
 */

export interface ScannedArea {
  rect: ProposedRect;
  from: "box" | "lines" | "ticks";
  tick_boxes?: TickBox[];
}

/**
 * Ink, for lines: darker than the paper by a margin. A thin grey rule, blurred by the scan, is much
 * lighter than print (find-boxes.ts's 160 loses it); the paper of a scan is rarely white either.
 */
function inkThreshold(data: Uint8Array): number {
  const histogram = new Uint32Array(256);
  for (let index = 0; index < data.length; index += 7) histogram[data[index]!]!++;
  let seen = 0;
  let paper = 255;
  const half = Math.ceil(data.length / 7) / 2;
  for (let value = 0; value < 256; value++) {
    seen += histogram[value]!;
    if (seen >= half) {
      paper = value;
      break;
    }
  }
  return Math.min(200, paper - 40);
}

interface Run {
  y: number;
  from: number;
  to: number;
}

export function scannedAreas(scan: GreyImage, scanPxPerMm: number): ScannedArea[] {
  // From 180 dpi, read at half (the darkest of each 2 × 2 pixels: a thin line stays whole): a quarter of the work.
  const half = scanPxPerMm >= 7;
  const image = half ? darkestOfTwo(scan) : scan;
  const pxPerMm = half ? scanPxPerMm / 2 : scanPxPerMm;
  const { width: W, height: H, data } = image;
  const mm = (value: number) => value * pxPerMm;
  // The ink's coordinates (in buffers kept between pages: a page has a few hundred thousand).
  const inkBelow = inkThreshold(data);
  const inkCount = inkCoordinates(data, W, H, inkBelow);
  const xs = kept[0]!;
  const ys = kept[1]!;
  const angle = skewOf(xs, ys, inkCount, W, H);
  const [cx, cy] = [W / 2, H / 2];
  const t = Math.tan(angle);
  // Turned straight (by −angle about the centre), a pixel to a pixel.
  const straight = straighten(xs, ys, inkCount, W, H, t);
  const gap = Math.max(2, Math.round(mm(0.6)));
  // Pieces of at least 3 mm, joined into lines (a line left turned by a fraction of the angle's step
  // steps from row to row), then kept when long enough: 15 mm across, 5 mm down (a box's side).
  const horizontal = merge(runs(straight, W, H, gap, mm(3), false), mm(0.6), mm(1), mm(1.5)).filter((line) => line.to - line.from >= mm(15));
  const vertical = merge(runs(straight, W, H, gap, mm(3), true), mm(0.6), mm(1), mm(1.5)).filter((line) => line.to - line.from >= mm(5));

  // Boxes: a top and a bottom line of the same extent, with sides at both ends.
  const boxes: { left: number; top: number; right: number; bottom: number }[] = [];
  const used = new Set<Run>();
  const sorted = [...horizontal].sort((a, b) => a.y - b.y);
  for (const top of sorted) {
    if (used.has(top)) continue;
    // A side runs from the top line to the bottom one (a ruled line above a box is not its top).
    const side = (x: number, from: number, to: number) => vertical.some((v) => Math.abs(v.y - x) <= mm(1.5) && v.from <= from + mm(1.5) && v.to >= to - mm(1.5));
    const bottom = sorted.find((b) => b !== top && !used.has(b) && b.y - top.y >= mm(5) && Math.abs(b.from - top.from) <= mm(1.5) && Math.abs(b.to - top.to) <= mm(1.5) && side(top.from, top.y, b.y) && side(top.to, top.y, b.y));
    if (!bottom) continue;
    used.add(top).add(bottom);
    boxes.push({ left: Math.min(top.from, bottom.from), right: Math.max(top.to, bottom.to), top: top.y, bottom: bottom.y });
  }
  const inBox = (line: Run) => boxes.some((box) => line.y >= box.top - mm(1) && line.y <= box.bottom + mm(1) && line.from >= box.left - mm(1) && line.to <= box.right + mm(1));
  const rules = sorted.filter((line) => !used.has(line) && !inBox(line) && line.to - line.from >= mm(20));
  // Runs of lines: the same extent (within 3 mm), evenly spaced (a first gap of at most 12 mm, then
  // each within a quarter of it); lines side by side (two columns) make runs of their own.
  const runsOfLines: Run[][] = [];
  for (const line of rules) {
    const run = runsOfLines.find((r) => {
      const last = r.at(-1)!;
      const spacing = r.length > 1 ? (last.y - r[0]!.y) / (r.length - 1) : null;
      const step = line.y - last.y;
      const even = spacing === null ? step >= mm(4) && step <= mm(12) : Math.abs(step - spacing) <= spacing / 4;
      return even && Math.abs(line.from - r[0]!.from) <= mm(3) && Math.abs(line.to - r[0]!.to) <= mm(3);
    });
    if (run) run.push(line);
    else runsOfLines.push([line]);
  }
  const ruled = runsOfLines.map((run) => {
    const spacing = run.length > 1 ? (run.at(-1)!.y - run[0]!.y) / (run.length - 1) : mm(8);
    return { left: Math.min(...run.map((l) => l.from)), right: Math.max(...run.map((l) => l.to)), top: run[0]!.y - spacing, bottom: run.at(-1)!.y };
  });

  // Back to the page as scanned: the upright rectangle round the turned one, as page fractions.
  const back = (rect: { left: number; top: number; right: number; bottom: number }): ProposedRect => {
    const corners = [
      [rect.left, rect.top],
      [rect.right, rect.top],
      [rect.left, rect.bottom],
      [rect.right, rect.bottom],
    ].map(([sx, sy]) => {
      // Inverse of the straightening above (to first order, as it was made).
      const y = (sy! + (sx! - cx) * t + (cy * t * t)) / (1 + t * t) + 0;
      const x = sx! - (y - cy) * t;
      return [x, y] as const;
    });
    const left = Math.max(0, Math.min(...corners.map((c) => c[0])));
    const top = Math.max(0, Math.min(...corners.map((c) => c[1])));
    const right = Math.min(W, Math.max(...corners.map((c) => c[0])));
    const bottom = Math.min(H, Math.max(...corners.map((c) => c[1])));
    return { x: round4(left / W), y: round4(top / H), width: round4((right - left) / W), height: round4((bottom - top) / H) };
  };
  const areas: ScannedArea[] = [...boxes.map((box) => ({ rect: back(box), from: "box" as const })), ...ruled.map((rect) => ({ rect: back(rect), from: "lines" as const }))];

  // Rows of tick boxes, found on the page as scanned.
  // (At the scan's own resolution: at half, a box's thin outline is too near its size for the finder.)
  const ticks = findTickBoxesInPage(scan, { x: 0, y: 0, width: 1, height: 1 }, scanPxPerMm).filter((box) => !areas.some((area) => inside(box, area.rect)));
  const rows: TickBox[][] = [];
  for (const box of ticks) {
    const row = rows.find((r) => Math.abs(r[0]!.y + r[0]!.height / 2 - (box.y + box.height / 2)) <= box.height / 2);
    if (row) row.push(box);
    else rows.push([box]);
  }
  const padX = mm(2) / W;
  const padY = mm(2) / H;

  for (const row of rows.filter((r) => r.length >= 2)) {
    const left = Math.min(...row.map((b) => b.x)) - padX;
    const top = Math.min(...row.map((b) => b.y)) - padY;
    const right = Math.max(...row.map((b) => b.x + b.width)) + padX;
    const bottom = Math.max(...row.map((b) => b.y + b.height)) + padY;
    areas.push({
      rect: { x: round4(left), y: round4(top), width: round4(right - left), height: round4(bottom - top) },
      from: "ticks",
      tick_boxes: row.sort((a, b) => a.x - b.x).map((box, index) => ({ ...box, label: String.fromCharCode(65 + index) })),
    });
  }
  return areas.sort((a, b) => a.rect.y - b.rect.y || a.rect.x - b.rect.x);
}

/** The ink's pixels' coordinates into `kept` (grown as needed), and how many there are. */
function inkCoordinates(data: Uint8Array, W: number, H: number, inkBelow: number): number {
  let count = 0;
  for (let index = 0; index < data.length; index++) if (data[index]! < inkBelow) count++;
  const xs = reused(0, count);
  const ys = reused(1, count);
  for (let y = 0, at = 0; y < H; y++) {
    const row = y * W;
    for (let x = 0; x < W; x++) {
      if (data[row + x]! < inkBelow) {
        xs[at] = x;
        ys[at++] = y;
      }
    }
  }
  return count;
}

/** The ink turned straight (by −atan(t) about the page's centre), a pixel to a pixel, as 1s on 0s. */
function straighten(xs: Int32Array, ys: Int32Array, count: number, W: number, H: number, t: number): Uint8Array {
  const straight = reusedBytes(W * H);
  const cx = W / 2;
  const cy = H / 2;
  for (let index = 0; index < count; index++) {
    const x = xs[index]!;
    const y = ys[index]!;
    const sx = Math.round(x + (y - cy) * t);
    const sy = Math.round(y - (x - cx) * t);
    if (sx >= 0 && sx < W && sy >= 0 && sy < H) straight[sy * W + sx] = 1;
  }
  return straight;
}

/** Buffers kept between pages (each thread has its own): a page's ink coordinates and its straightened ink. */
const kept: Int32Array[] = [new Int32Array(0), new Int32Array(0)];
let keptBytes = new Uint8Array(0);
function reused(which: 0 | 1, length: number): Int32Array {
  if (kept[which]!.length < length) kept[which] = new Int32Array(Math.ceil(length * 1.25));
  return kept[which]!;
}
function reusedBytes(length: number): Uint8Array {
  if (keptBytes.length < length) keptBytes = new Uint8Array(length);
  const bytes = keptBytes.subarray(0, length);
  bytes.fill(0);
  return bytes;
}

const round4 = (value: number) => Math.round(value * 10000) / 10000;

/** The image at half its size, each pixel the darkest of the four it stands for. */
function darkestOfTwo({ data, width, height }: GreyImage): GreyImage {
  const W = Math.floor(width / 2);
  const H = Math.floor(height / 2);
  const out = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    const top = 2 * y * width;
    const bottom = top + width;
    for (let x = 0; x < W; x++) {
      const at = 2 * x;
      out[y * W + x] = Math.min(data[top + at]!, data[top + at + 1]!, data[bottom + at]!, data[bottom + at + 1]!);
    }
  }
  return { data: out, width: W, height: H };
}
const inside = (box: TickBox, rect: ProposedRect) => box.x >= rect.x && box.y >= rect.y && box.x + box.width <= rect.x + rect.width && box.y + box.height <= rect.y + rect.height;

/** The turn (radians, within ±2°) at which the ink's rows are sharpest: most ink in fewest rows. */
function skewOf(xs: Int32Array, ys: Int32Array, count: number, W: number, H: number): number {
  // At most about 60,000 of the ink's pixels, evenly taken, once (not again for each angle tried).
  const step = Math.max(1, Math.floor(count / 60000));
  const samples = Math.ceil(count / step);
  const sx = new Float64Array(samples);
  const sy = new Float64Array(samples);
  for (let index = 0, at = 0; index < count; index += step, at++) {
    sx[at] = xs[index]! - W / 2;
    sy[at] = ys[index]! + W / 2;
  }
  const histogram = new Float64Array(H + W);
  // The tenths tried on a third of them (the best tenth stands out), the fiftieths on all.
  const scoreOf = (degrees: number, stride: number) => rowScore(sx, sy, samples, stride, histogram, Math.tan((degrees / 180) * Math.PI));
  // Tenths of a degree, then fiftieths round the best.
  let best = { degrees: 0, score: -1 };
  for (let tenth = -20; tenth <= 20; tenth++) {
    const score = scoreOf(tenth / 10, 3);
    if (score > best.score) best = { degrees: tenth / 10, score };
  }
  const coarse = best.degrees;
  best = { degrees: coarse, score: scoreOf(coarse, 1) };
  for (let fiftieth = -5; fiftieth <= 5; fiftieth++) {
    const score = scoreOf(coarse + fiftieth / 50, 1);
    if (score > best.score) best = { degrees: coarse + fiftieth / 50, score };
  }
  return (best.degrees / 180) * Math.PI;
}

/** How sharply `samples` points (every `stride`-th of them) fall into rows when turned by atan(t): the sum of each row's count squared. */
function rowScore(sx: Float64Array, sy: Float64Array, samples: number, stride: number, histogram: Float64Array, t: number): number {
  histogram.fill(0);
  const rows = histogram.length;
  for (let index = 0; index < samples; index += stride) {
    const row = Math.round(sy[index]! - sx[index]! * t);
    if (row >= 0 && row < rows) histogram[row]!++;
  }
  let score = 0;
  for (let row = 0; row < rows; row++) score += histogram[row]! * histogram[row]!;
  return score;
}

/**
 * Runs of ink along rows (or columns when `vertical`), bridging gaps of up to `gap` pixels, at least
 * `min` long and mostly ink (a row through a line of text is broken every few letters). Both read the
 * image row by row (a column's runs are followed in arrays, one entry a column): memory in order.
 */
export function runs(ink: Uint8Array, W: number, H: number, gap: number, min: number, vertical: boolean): Run[] {
  const keep = (found: Run[], line: number, start: number, last: number, count: number) => {
    if (start >= 0 && last - start + 1 >= min && count >= 0.85 * (last - start + 1)) found.push({ y: line, from: start, to: last + 1 });
  };
  if (!vertical) {
    const found: Run[] = [];
    for (let line = 0; line < H; line++) {
      const row = line * W;
      let start = -1;
      let last = -1;
      let count = 0;
      for (let position = 0; position < W; position++) {
        if (!ink[row + position]) continue;
        if (start >= 0 && position - last - 1 > gap) {
          keep(found, line, start, last, count);
          start = -1;
          count = 0;
        }
        if (start < 0) start = position;
        last = position;
        count++;
      }
      keep(found, line, start, last, count);
    }
    return found;
  }
  const start = new Int32Array(W).fill(-1);
  const last = new Int32Array(W).fill(-1);
  const count = new Int32Array(W);
  const byColumn: Run[][] = Array.from({ length: W }, () => []);
  for (let position = 0; position < H; position++) {
    const row = position * W;
    for (let line = 0; line < W; line++) {
      if (!ink[row + line]) continue;
      if (start[line]! >= 0 && position - last[line]! - 1 > gap) {
        keep(byColumn[line]!, line, start[line]!, last[line]!, count[line]!);
        start[line] = -1;
        count[line] = 0;
      }
      if (start[line]! < 0) start[line] = position;
      last[line] = position;
      count[line]!++;
    }
  }
  for (let line = 0; line < W; line++) keep(byColumn[line]!, line, start[line]!, last[line]!, count[line]!);
  return byColumn.flat();
}

/**
 * Runs on nearby rows (within `near` pixels) that overlap or nearly touch (within `join`) are one line
 * (a line still turned a little is cut into pieces on neighbouring rows); a line thicker than
 * `maxThickness` is not a line. A line's row is its pieces' mean, weighted by length.
 */
function merge(found: Run[], near: number, join: number, maxThickness: number): Run[] {
  const sorted = [...found].sort((a, b) => a.y - b.y || a.from - b.from);
  const groups: { minY: number; maxY: number; from: number; to: number; ySum: number; weight: number }[] = [];
  let active: typeof groups = [];
  for (const run of sorted) {
    active = active.filter((group) => run.y - group.maxY <= near);
    const group = active.find((g) => run.from <= g.to + join && run.to >= g.from - join);
    const length = run.to - run.from;
    if (group) {
      group.maxY = run.y;
      group.from = Math.min(group.from, run.from);
      group.to = Math.max(group.to, run.to);
      group.ySum += run.y * length;
      group.weight += length;
    } else {
      const created = { minY: run.y, maxY: run.y, from: run.from, to: run.to, ySum: run.y * length, weight: length };
      groups.push(created);
      active.push(created);
    }
  }
  // Pieces met before they were joined (two ends of one line, each started on its own) are joined now.
  for (let joined = true; joined; ) {
    joined = false;
    for (let a = 0; a < groups.length && !joined; a++) {
      for (let b = a + 1; b < groups.length && !joined; b++) {
        const [g, h] = [groups[a]!, groups[b]!];
        const close = h.minY - g.maxY <= near && g.minY - h.maxY <= near;
        if (!close || h.from > g.to + join || h.to < g.from - join) continue;
        Object.assign(g, { minY: Math.min(g.minY, h.minY), maxY: Math.max(g.maxY, h.maxY), from: Math.min(g.from, h.from), to: Math.max(g.to, h.to), ySum: g.ySum + h.ySum, weight: g.weight + h.weight });
        groups.splice(b, 1);
        joined = true;
      }
    }
  }
  return groups.filter((g) => g.maxY - g.minY + 1 <= maxThickness).map((g) => ({ y: g.ySum / g.weight, from: g.from, to: g.to }));
}
