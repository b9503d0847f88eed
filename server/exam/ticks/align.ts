import type { GreyImage } from "../intake/imaging/pdfjs";
import { type Affine, type Point, type PixelRect, apply, compose, fitSimilarity, greyPercentile, percentile, rotationAbout, scaleOf, translation } from "./image";
import type { AreaRect } from "./reading";

/**
 * Placing a scanned page on its template page (docs/decisions/intake-and-scans.md, "Tick boxes and blank answers read from the scan"):
 * 1. a first guess: from the printed code's four corners as zxing found them on the scan (a similarity:
 *    shift, scale, turn, the page upside down included), or, without a code, by the page's printed
 *    content (a coarse search at 1 px a millimetre over the turn, a small angle and the shift);
 * 2. refined by the content around each area to read: the template's rendered patch is matched against the
 *    scan's (a search of a few millimetres), the areas' shifts fit an affine map of the whole page, and
 *    each area is matched once more on it. An area whose printed outline is not found is not aligned:
 *    everything in it is uncertain, never a guess.
 * Coordinates: the template is rendered at WORK_DPI (its pixels are "template pixels"); maps go from
 * template pixels to the scan's upright pixels.
 */

/** The resolution the template page is rendered at, and every area of the scan looked at. */
export const WORK_DPI = 100;
const MM = WORK_DPI / 25.4;

/** The template page, rendered once per paper (the worker caches it) with what the reading needs of it. */
export interface TemplatePage {
  image: GreyImage;
  /** 1 where the template prints something (grey below PRINTED), widened by PRINTED_REACH pixels: ink there is the paper's own. */
  printed: Uint8Array;
  /**
   * The same widened by WIDE_REACH: what a written area leaves out, since a long ruled line may lie a
   * pixel or two further off at its ends than one shift places it (a false "written" costs a look, a
   * false blank marks).
   */
  printedWide: Uint8Array;
}

/** A template pixel darker than this is printed; the core of an outline is darker than CORE. */
const PRINTED = 200;
const CORE = 150;
/** How far beyond the printed pixels the scan's blur and a pixel of misplacement may spread the print. */
const PRINTED_REACH = 2;
const WIDE_REACH = 4;

export function templatePage(image: GreyImage): TemplatePage {
  return { image, printed: dilated(image, PRINTED_REACH), printedWide: dilated(image, WIDE_REACH) };
}

/** 1 where `image` is printed (below PRINTED) within `reach` pixels (a square): rows first, then columns. */
function dilated(image: GreyImage, reach: number): Uint8Array {
  const { width, height, data } = image;
  const printed = new Uint8Array(width * height);
  const rows = new Uint8Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      if (data[y * width + x]! >= PRINTED) continue;
      for (let k = Math.max(0, x - reach); k <= Math.min(width - 1, x + reach); k++) rows[y * width + k] = 1;
    }
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      if (!rows[y * width + x]) continue;
      for (let k = Math.max(0, y - reach); k <= Math.min(height - 1, y + reach); k++) printed[k * width + x] = 1;
    }
  return printed;
}

/** The scanned page, upright (as the reading's rotation turns it), with its paper and black levels. */
export interface ScanPage {
  image: GreyImage;
  dpi: number;
  /** The grey of the darkest print on the page (its 0.1st percentile: the code's modules, outlines, text). */
  black: number;
}

export function scanPage(image: GreyImage, dpi: number): ScanPage {
  // One pixel in 7 at the reading's resolution, as many at any other (a page decoded at 300 dpi holds 9 times the pixels).
  return { image, dpi, black: greyPercentile(image.data, 0.001, sampleStep(dpi)) };
}

/** The step through a page's pixels that takes as many of them as one in 7 does at WORK_DPI. */
const sampleStep = (dpi: number) => Math.max(7, Math.round(7 * (dpi / WORK_DPI) ** 2));

/** The code's four corners as zxing gives them (in the scan's upright pixels). */
export interface CodeCorners {
  topLeft: Point;
  topRight: Point;
  bottomLeft: Point;
  bottomRight: Point;
}

/**
 * The first guess from the code: the code's rectangle on the template (page fractions) onto the corners
 * found on the scan. Null when the corners do not make the printed code at about the scan's scale (not
 * our code, or misread).
 */
export function alignByCode(template: TemplatePage, scan: ScanPage, code: AreaRect, corners: CodeCorners): Affine | null {
  const { width, height } = template.image;
  const from = [
    { x: code.x * width, y: code.y * height },
    { x: (code.x + code.width) * width, y: code.y * height },
    { x: code.x * width, y: (code.y + code.height) * height },
    { x: (code.x + code.width) * width, y: (code.y + code.height) * height },
  ];
  const to = [corners.topLeft, corners.topRight, corners.bottomLeft, corners.bottomRight];
  const fit = fitSimilarity(from, to);
  const expected = scan.dpi / WORK_DPI;
  if (Math.abs(scaleOf(fit) / expected - 1) > 0.08) return null;
  // Every corner where the fit puts it, within a millimetre of the scan's.
  const mmOnScan = scan.dpi / 25.4;
  if (from.some((point, index) => distance(apply(fit, point), to[index]!) > 1.2 * mmOnScan)) return null;
  return fit;
}

const distance = (p: Point, q: Point) => Math.hypot(p.x - q.x, p.y - q.y);

/** Coarse content search: 1 px a millimetre; the turn, the angle (±2°) and the shift (±14 mm). */
const COARSE_ANGLES = [-2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2];
const COARSE_SHIFT = 14;

/**
 * The first guess without a code: the page's printed content, found on the scan by a coarse search.
 * Null when no placement stands out (a blank or foreign page, or one too damaged): then nothing on the
 * page is read.
 */
export function alignByContent(template: TemplatePage, scan: ScanPage): { transform: Affine; turn: 0 | 180 } | null {
  // Both pages at 1 px a millimetre, as darkness (0 paper … 1 black).
  const coarseTemplate = shrink(template.image, MM, 255);
  const paper = greyPercentile(scan.image.data, 0.6, sampleStep(scan.dpi));
  const contrast = Math.max(1, paper - scan.black);
  const scanMm = scan.dpi / 25.4;
  const coarseScan = shrink(scan.image, scanMm, paper);
  const tDark = (i: number) => (255 - coarseTemplate.data[i]!) / 255;
  const dark: Point[] = [];
  const light: Point[] = [];
  for (let y = 0; y < coarseTemplate.height; y++)
    for (let x = 0; x < coarseTemplate.width; x++) {
      const value = tDark(y * coarseTemplate.width + x);
      if (value > 0.2) dark.push({ x, y });
      else if (value < 0.02) light.push({ x, y });
    }
  if (dark.length < 50) return null;
  const pick = (points: Point[], most: number) => points.filter((_, index) => index % Math.max(1, Math.ceil(points.length / most)) === 0);
  const darkPoints = pick(dark, 1200);
  const lightPoints = pick(light, 1200);
  const darknessAt = (x: number, y: number) => {
    const xi = Math.round(x);
    const yi = Math.round(y);
    if (xi < 0 || yi < 0 || xi >= coarseScan.width || yi >= coarseScan.height) return 0;
    return Math.max(0, Math.min(1, (paper - coarseScan.data[yi * coarseScan.width + xi]!) / contrast));
  };
  const centre = { x: coarseTemplate.width / 2, y: coarseTemplate.height / 2 };
  const best = { 0: { score: -Infinity, angle: 0, dx: 0, dy: 0 }, 180: { score: -Infinity, angle: 0, dx: 0, dy: 0 } };
  const scoreAt = (dp: Point[], lp: Point[], dx: number, dy: number) => {
    let sumDark = 0;
    for (const point of dp) sumDark += darknessAt(point.x + dx, point.y + dy);
    let sumLight = 0;
    for (const point of lp) sumLight += darknessAt(point.x + dx, point.y + dy);
    return sumDark / dp.length - sumLight / lp.length;
  };
  const turned = (turn: 0 | 180, degrees: number) => {
    const rotate = rotationAbout(centre, ((degrees + turn) / 180) * Math.PI);
    return [darkPoints.map((point) => apply(rotate, point)), lightPoints.map((point) => apply(rotate, point))] as const;
  };
  for (const turn of [0, 180] as const) {
    for (const degrees of COARSE_ANGLES) {
      const [dp, lp] = turned(turn, degrees);
      // Every second millimetre first (a printed line blurs over 2 px at this scale), then around the best.
      for (let dy = -COARSE_SHIFT; dy <= COARSE_SHIFT; dy += 2)
        for (let dx = -COARSE_SHIFT; dx <= COARSE_SHIFT; dx += 2) {
          const score = scoreAt(dp, lp, dx, dy);
          if (score > best[turn].score) best[turn] = { score, angle: degrees, dx, dy };
        }
    }
    const around = best[turn];
    const [dp, lp] = turned(turn, around.angle);
    for (let dy = around.dy - 1; dy <= around.dy + 1; dy++)
      for (let dx = around.dx - 1; dx <= around.dx + 1; dx++) {
        const score = scoreAt(dp, lp, dx, dy);
        if (score > best[turn].score) best[turn] = { score, angle: around.angle, dx, dy };
      }
  }
  const [winner, other] = best[0].score >= best[180].score ? ([0, 180] as const) : ([180, 0] as const);
  const found = best[winner];
  // The content must stand out, and the other way up must be plainly worse.
  if (found.score < 0.15 || best[other].score > 0.6 * found.score) return null;
  // Template pixels → coarse template (÷MM) → turned and shifted → coarse scan → scan pixels (×scanMm).
  const toCoarse: Affine = { a: 1 / MM, b: 0, c: 0, d: 0, e: 1 / MM, f: 0 };
  const move = compose(translation(found.dx, found.dy), rotationAbout(centre, ((found.angle + winner) / 180) * Math.PI));
  const toScan: Affine = { a: scanMm, b: 0, c: 0, d: 0, e: scanMm, f: 0 };
  return { transform: compose(toScan, compose(move, toCoarse)), turn: winner };
}

/** `image` at 1 px for every `pixelsPerCell` (box average); `outside` nowhere. */
function shrink(image: GreyImage, pixelsPerCell: number, _outside: number): GreyImage {
  const width = Math.max(1, Math.floor(image.width / pixelsPerCell));
  const height = Math.max(1, Math.floor(image.height / pixelsPerCell));
  const sums = new Float64Array(width * height);
  const counts = new Uint32Array(width * height);
  for (let y = 0; y < image.height; y++) {
    const cy = Math.min(height - 1, Math.floor(y / pixelsPerCell));
    for (let x = 0; x < image.width; x++) {
      const cell = cy * width + Math.min(width - 1, Math.floor(x / pixelsPerCell));
      sums[cell]! += image.data[y * image.width + x]!;
      counts[cell]!++;
    }
  }
  const data = new Uint8Array(width * height);
  for (let i = 0; i < data.length; i++) data[i] = Math.round(sums[i]! / Math.max(1, counts[i]!));
  return { data, width, height };
}

/**
 * A region of the scan seen through `transform` on the template's pixel grid: `region` (template pixels)
 * as darkness 0 (the region's paper) … 1 (the page's black). `paper` is the region's own (its 80th
 * percentile: lighting and toner vary across a copy).
 */
interface ScanPatch {
  region: PixelRect;
  darkness: Float32Array;
}

/**
 * Where the patches of one placeAreas call are kept: one buffer, taken again by the next call. A page's
 * patches come to megabytes; allocated anew for every page they were the main cause of V8's full
 * collections in a pile's reading (large typed arrays are external memory, which brings them on).
 * Beyond ARENA_MOST a patch is allocated on its own, so a hostile layout leaves nothing large behind.
 */
const ARENA_MOST = 4 * 1024 * 1024;
const patchArena = { buffer: new Float32Array(256 * 1024), used: 0 };

function patchBuffer(length: number): Float32Array {
  if (patchArena.used + length > patchArena.buffer.length) {
    const wanted = Math.max(2 * patchArena.buffer.length, length);
    if (wanted > ARENA_MOST) return new Float32Array(length);
    // Patches already taken in this call keep the old buffer alive until they are read.
    patchArena.buffer = new Float32Array(wanted);
    patchArena.used = 0;
  }
  const patch = patchArena.buffer.subarray(patchArena.used, patchArena.used + length);
  patchArena.used += length;
  return patch;
}

function warp(scan: ScanPage, transform: Affine, region: PixelRect, givenPaper?: number): ScanPatch & { paper: number } {
  const raw = patchBuffer(region.width * region.height);
  let at = 0;
  for (let y = region.top; y < region.top + region.height; y++) {
    // Along a row the map moves by (a, d) per pixel.
    let sx = transform.a * region.left + transform.b * y + transform.c;
    let sy = transform.d * region.left + transform.e * y + transform.f;
    const { data, width, height } = scan.image;
    for (let x = 0; x < region.width; x++) {
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      if (x0 < 0 || y0 < 0 || x0 + 1 >= width || y0 + 1 >= height) raw[at++] = 255;
      else {
        const fx = sx - x0;
        const fy = sy - y0;
        const i = y0 * width + x0;
        const top = data[i]! + (data[i + 1]! - data[i]!) * fx;
        const bottom = data[i + width]! + (data[i + width + 1]! - data[i + width]!) * fx;
        raw[at++] = top + (bottom - top) * fy;
      }
      sx += transform.a;
      sy += transform.d;
    }
  }
  const paper = givenPaper ?? percentile(raw, 0.8, raw.length > 10_000 ? 3 : 1);
  const perGrey = 1 / Math.max(1, paper - scan.black);
  // In place: the grey values become darkness.
  const darkness = raw;
  for (let i = 0; i < raw.length; i++) {
    const value = (paper - raw[i]!) * perGrey;
    darkness[i] = value < 0 ? 0 : value > 1 ? 1 : value;
  }
  return { region, darkness, paper };
}

/**
 * How far each area is searched for around the first guess: the code's corners place the far side of
 * the page within ~2.5 mm (a 20 mm code gives the angle and scale only roughly), the content search
 * within ~1.5 mm.
 */
const SEARCH = Math.round(3.5 * MM);
/** Around an area, the template's print its match uses (its outline lies on its edge). */
const MATCH_MARGIN = Math.round(3 * MM);
/** The least contrast (darkness of the outline's core on the scan minus the paper's) of a match. */
const MATCH_FLOOR = 0.2;

/** The scan seen on the template's pixel grid over `region` (template pixels), shifted by (dx, dy). */
export interface AreaView {
  patch: ScanPatch;
  dx: number;
  dy: number;
}

export interface AreaPlacement {
  /** Template pixels → scan pixels for this area; null: not aligned (its outline was not found). */
  transform: Affine | null;
  score: number;
  /** The scan around the area as matched (its darkness at template pixel p is view.patch at p + (dx, dy)); read it before placeAreas is called again (its buffer is reused). */
  view: AreaView | null;
}

/** The darkness the scan has at template pixel (x, y) of a placed area; undefined outside what was seen. */
export function darknessAt(view: AreaView, x: number, y: number): number | undefined {
  const { region, darkness } = view.patch;
  const px = x + view.dx - region.left;
  const py = y + view.dy - region.top;
  if (px < 0 || py < 0 || px >= region.width || py >= region.height) return undefined;
  return darkness[py * region.width + px];
}

/**
 * Refines the first guess by each area's own print: the template's patch around the area is matched
 * against the scan (within SEARCH), and the area is placed at the best shift when its match has
 * MATCH_FLOOR contrast. A tick box is matched once more on its own outline (read-ticks.ts), a written
 * area piece by piece (blank-areas.ts): residual turn and scale across the page are taken up locally.
 */
export function placeAreas(template: TemplatePage, scan: ScanPage, first: Affine, areas: AreaRect[]): AreaPlacement[] {
  // The views of the last call are done with: their caller read them before calling again (read-areas.ts, in one synchronous step).
  patchArena.used = 0;
  return areas.map((area) => {
    const found = match(template, scan, first, matchRegion(template, area), SEARCH);
    if (found.score < MATCH_FLOOR) return { transform: null, score: found.score, view: null };
    return { transform: compose(first, translation(found.dx, found.dy)), score: found.score, view: { patch: found.patch, dx: found.dx, dy: found.dy } };
  });
}

export function areaPixels(template: TemplatePage, area: AreaRect): PixelRect {
  const { width, height } = template.image;
  const left = Math.floor(area.x * width);
  const top = Math.floor(area.y * height);
  return { left, top, width: Math.max(1, Math.ceil((area.x + area.width) * width) - left), height: Math.max(1, Math.ceil((area.y + area.height) * height) - top) };
}

function matchRegion(template: TemplatePage, area: AreaRect): PixelRect {
  const inner = areaPixels(template, area);
  const left = Math.max(0, inner.left - MATCH_MARGIN);
  const top = Math.max(0, inner.top - MATCH_MARGIN);
  const right = Math.min(template.image.width, inner.left + inner.width + MATCH_MARGIN);
  const bottom = Math.min(template.image.height, inner.top + inner.height + MATCH_MARGIN);
  return { left, top, width: Math.max(1, right - left), height: Math.max(1, bottom - top) };
}

/** The most template pixels of each kind a match weighs (evenly spread over the region). */
const MATCH_POINTS = 600;

/** The template's print core and clear paper in a region, as offsets into the region's pixels; kept per template. */
const pointsKept = new WeakMap<TemplatePage, Map<string, { core: Int32Array; clear: Int32Array }>>();

function templatePoints(template: TemplatePage, region: PixelRect) {
  let kept = pointsKept.get(template);
  if (!kept) {
    kept = new Map<string, { core: Int32Array; clear: Int32Array }>();
    pointsKept.set(template, kept);
  }
  const key = `${region.left},${region.top},${region.width},${region.height}`;
  const found = kept.get(key);
  if (found) return found;
  const { width } = template.image;
  const core: number[] = [];
  const clear: number[] = [];
  for (let y = region.top; y < region.top + region.height; y++)
    for (let x = region.left; x < region.left + region.width; x++) {
      const index = y * width + x;
      const local = (y - region.top) * region.width + (x - region.left);
      if (template.image.data[index]! < CORE) core.push(local);
      else if (!template.printed[index]) clear.push(local);
    }
  const spread = (points: number[]) => Int32Array.from(points.filter((_, index) => index % Math.max(1, Math.ceil(points.length / MATCH_POINTS)) === 0));
  const made = { core: spread(core), clear: spread(clear) };
  if (kept.size > 2000) kept.clear();
  kept.set(key, made);
  return made;
}

/**
 * The shift (template pixels, within ±search) at which the scan's darkness best follows the template's
 * print in `region`: the mean darkness on the print's core minus the mean on clear paper, searched every
 * second pixel on a blurred copy, then every pixel around the best.
 */
function match(template: TemplatePage, scan: ScanPage, transform: Affine, region: PixelRect, search: number): { dx: number; dy: number; score: number; patch: ScanPatch } {
  const wide = { left: region.left - search, top: region.top - search, width: region.width + 2 * search, height: region.height + 2 * search };
  const patch = warp(scan, transform, wide);
  const points = templatePoints(template, region);
  if (points.core.length < 20 || points.clear.length < 20) return { dx: 0, dy: 0, score: 0, patch };
  // Region offsets → offsets into the wide patch (at no shift).
  const toWide = (local: number) => (Math.floor(local / region.width) + search) * wide.width + (local % region.width) + search;
  const core = points.core.map(toWide);
  const clear = points.clear.map(toWide);
  const blurred = boxBlur(patch.darkness, wide.width, wide.height);
  // `every`: the coarse search weighs every second point (the blurred copy is smooth enough for it).
  const score = (values: Float32Array, dx: number, dy: number, every: number) => {
    const offset = dy * wide.width + dx;
    let dark = 0;
    for (let i = 0; i < core.length; i += every) dark += values[core[i]! + offset]!;
    let light = 0;
    for (let i = 0; i < clear.length; i += every) light += values[clear[i]! + offset]!;
    return dark / Math.ceil(core.length / every) - light / Math.ceil(clear.length / every);
  };
  let best = { dx: 0, dy: 0, score: -Infinity };
  for (let dy = -search; dy <= search; dy += 2)
    for (let dx = -search; dx <= search; dx += 2) {
      const value = score(blurred, dx, dy, 2);
      if (value > best.score) best = { dx, dy, score: value };
    }
  const around = best;
  best = { dx: 0, dy: 0, score: -Infinity };
  for (let dy = Math.max(-search, around.dy - 2); dy <= Math.min(search, around.dy + 2); dy++)
    for (let dx = Math.max(-search, around.dx - 2); dx <= Math.min(search, around.dx + 2); dx++) {
      const value = score(patch.darkness, dx, dy, 1);
      if (value > best.score) best = { dx, dy, score: value };
    }
  return { ...best, patch };
}

/** The blurred copy match() searches on, reused: it lives only for one match. */
let blurScratch = new Float32Array(0);

/** A 3×3 box blur (edges kept), into blurScratch. */
function boxBlur(values: Float32Array, width: number, height: number): Float32Array {
  if (blurScratch.length < values.length) blurScratch = new Float32Array(Math.min(ARENA_MOST, Math.max(values.length, 2 * blurScratch.length)));
  const out = values.length <= blurScratch.length ? blurScratch.subarray(0, values.length) : new Float32Array(values.length);
  out.set(values);
  for (let y = 1; y < height - 1; y++)
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      out[i] =
        (values[i - width - 1]! + values[i - width]! + values[i - width + 1]! + values[i - 1]! + values[i]! + values[i + 1]! + values[i + width - 1]! + values[i + width]! + values[i + width + 1]!) / 9;
    }
  return out;
}
