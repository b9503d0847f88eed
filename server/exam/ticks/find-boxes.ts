import { MAX_TICK_BOXES, TICK_BOX_LABELS, type TickBox } from "../../../lib/rules/tick-boxes";
import type { GreyImage } from "../intake/imaging/pdfjs";

/**
 * The box finder of the template editor's "Find boxes" (issue 36, item 1): the tick boxes printed
 * inside an area of a template paper's rendered page. Pure image analysis: the imaging worker renders
 * the page within its bounds (server/exam/intake/imaging/find-tick-boxes.ts) and hands the pixels here.
 *
 * A tick box is a closed printed outline of tick-box size: a connected shape of ink 3–12 mm across,
 * about as wide as tall, that encloses paper (what is inside its outline is not reached from outside
 * it) and is mostly hole: a letter (an O, a D) encloses less of itself than a thin printed outline
 * does, a ruled answer box is larger, and a ruled line encloses nothing. Square or round by how much
 * of its bounding square the outline fills (a circle fills π/4 of it).
 */

/** Where to look: page fractions of the template page, as response areas. */
export interface AreaToSearch {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The resolution to render a page at for the finder: a 3 mm box is 24 pixels across, an outline of 0.5 pt about 1.4 pixels. */
export const FIND_DPI = 200;
const MIN_SIDE_MM = 3;
const MAX_SIDE_MM = 12;
/** Ink: darker than this. */
const INK_BELOW = 160;
/** A box's sides are within this ratio of each other. */
const MAX_ASPECT = 1.45;
/** Of the shape (its ink and what it encloses), at least this share is enclosed paper: a thin outline, not a letter. */
const MIN_HOLE_SHARE = 0.7;
/** What the shape covers of its bounding rectangle: a square about all of it, a circle π/4 (0.785). */
const SQUARE_FILL = 0.9;

interface Shape {
  left: number;
  top: number;
  right: number;
  bottom: number;
  shape: TickBox["shape"];
}

/**
 * The boxes found in `area` of a rendered page, in reading order (rows top to bottom, each left to
 * right), labelled A, B, C … (at most 26); `pxPerMm`: the render's pixels per millimetre.
 */
export function findTickBoxesInPage(image: GreyImage, area: AreaToSearch, pxPerMm: number): TickBox[] {
  const { width: W, height: H } = image;
  const left = clampInt(Math.ceil(area.x * W), 0, W);
  const top = clampInt(Math.ceil(area.y * H), 0, H);
  const right = clampInt(Math.floor((area.x + area.width) * W), left, W);
  const bottom = clampInt(Math.floor((area.y + area.height) * H), top, H);
  const cw = right - left;
  const ch = bottom - top;
  if (cw < 2 || ch < 2) return [];
  const minSide = MIN_SIDE_MM * pxPerMm;
  const maxSide = MAX_SIDE_MM * pxPerMm;

  const ink = new Uint8Array(cw * ch);
  for (let y = 0; y < ch; y++) {
    const row = (top + y) * W + left;
    for (let x = 0; x < cw; x++) ink[y * cw + x] = image.data[row + x]! < INK_BELOW ? 1 : 0;
  }

  const labels = new Int32Array(cw * ch);
  const stack = new Int32Array(cw * ch);
  const found: Shape[] = [];
  let next = 0;
  for (let start = 0; start < ink.length; start++) {
    if (!ink[start] || labels[start]) continue;
    next++;
    // One shape of ink (8-connected), its bounding rectangle and size.
    let sp = 0;
    stack[sp++] = start;
    labels[start] = next;
    let minX = cw;
    let minY = ch;
    let maxX = -1;
    let maxY = -1;
    let count = 0;
    while (sp > 0) {
      const at = stack[--sp]!;
      const x = at % cw;
      const y = (at - x) / cw;
      count++;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
      for (let dy = -1; dy <= 1; dy++) {
        const ny = y + dy;
        if (ny < 0 || ny >= ch) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const nx = x + dx;
          if (nx < 0 || nx >= cw) continue;
          const n = ny * cw + nx;
          if (ink[n] && !labels[n]) {
            labels[n] = next;
            stack[sp++] = n;
          }
        }
      }
    }
    const w = maxX - minX + 1;
    const h = maxY - minY + 1;
    // Cut by the area's edge: not wholly inside it.
    if (minX === 0 || minY === 0 || maxX === cw - 1 || maxY === ch - 1) continue;
    if (w < minSide || h < minSide || w > maxSide || h > maxSide) continue;
    if (Math.max(w, h) / Math.min(w, h) > MAX_ASPECT) continue;
    const enclosed = enclosedPixels(labels, cw, next, minX, minY, w, h);
    if (enclosed / (enclosed + count) < MIN_HOLE_SHARE) continue;
    const fill = (enclosed + count) / (w * h);
    found.push({ left: left + minX, top: top + minY, right: left + maxX + 1, bottom: top + maxY + 1, shape: fill >= SQUARE_FILL ? "square" : "round" });
  }

  // An outline drawn inside another (a double-ruled box) is the same box.
  const outer = found.filter((shape) => !found.some((other) => other !== shape && other.left <= shape.left && other.top <= shape.top && other.right >= shape.right && other.bottom >= shape.bottom));
  return inReadingOrder(outer)
    .slice(0, MAX_TICK_BOXES)
    .map((shape, index) => toTickBox(shape, index, W, H, area));
}

/** Pixels of the rectangle that are not of shape `label` and cannot be reached from the rectangle's edge without crossing it. */
function enclosedPixels(labels: Int32Array, stride: number, label: number, x0: number, y0: number, w: number, h: number): number {
  const outside = new Uint8Array(w * h);
  const queue = new Int32Array(w * h);
  let head = 0;
  let tail = 0;
  const visit = (x: number, y: number) => {
    const local = y * w + x;
    if (outside[local] || labels[(y0 + y) * stride + x0 + x] === label) return;
    outside[local] = 1;
    queue[tail++] = local;
  };
  for (let x = 0; x < w; x++) {
    visit(x, 0);
    visit(x, h - 1);
  }
  for (let y = 0; y < h; y++) {
    visit(0, y);
    visit(w - 1, y);
  }
  while (head < tail) {
    const local = queue[head++]!;
    const x = local % w;
    const y = (local - x) / w;
    if (x > 0) visit(x - 1, y);
    if (x < w - 1) visit(x + 1, y);
    if (y > 0) visit(x, y - 1);
    if (y < h - 1) visit(x, y + 1);
  }
  let enclosed = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) if (!outside[y * w + x] && labels[(y0 + y) * stride + x0 + x] !== label) enclosed++;
  }
  return enclosed;
}

/** Rows top to bottom (a box whose middle is within half a box of a row's joins it), each left to right. */
function inReadingOrder(shapes: Shape[]): Shape[] {
  const byTop = [...shapes].sort((a, b) => a.top + a.bottom - (b.top + b.bottom));
  const rows: Shape[][] = [];
  for (const shape of byTop) {
    const middle = (shape.top + shape.bottom) / 2;
    const row = rows.at(-1);
    const rowMiddle = row ? row.reduce((sum, s) => sum + (s.top + s.bottom) / 2, 0) / row.length : 0;
    if (row && Math.abs(middle - rowMiddle) <= (shape.bottom - shape.top) / 2) row.push(shape);
    else rows.push([shape]);
  }
  return rows.flatMap((row) => row.sort((a, b) => a.left - b.left));
}

const round4 = (value: number) => Math.round(value * 10000) / 10000;

/** Page fractions, kept inside the area (the save's rule) after rounding. */
function toTickBox(shape: Shape, index: number, W: number, H: number, area: AreaToSearch): TickBox {
  const x = Math.max(round4(shape.left / W), Math.ceil(area.x * 10000) / 10000);
  const y = Math.max(round4(shape.top / H), Math.ceil(area.y * 10000) / 10000);
  const right = Math.min(round4(shape.right / W), Math.floor((area.x + area.width) * 10000) / 10000);
  const bottom = Math.min(round4(shape.bottom / H), Math.floor((area.y + area.height) * 10000) / 10000);
  return { label: TICK_BOX_LABELS[index]!, x, y, width: round4(right - x), height: round4(bottom - y), shape: shape.shape };
}

const clampInt = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));
