/**
 * Small numeric helpers for reading ticks: a 2-D affine map, its least-squares fits and percentiles. Markbook's own (a few lines each; no image library does these on raw arrays
 * without copies).
 */

/** x' = a·x + b·y + c, y' = d·x + e·y + f. */
export interface Affine {
  a: number;
  b: number;
  c: number;
  d: number;
  e: number;
  f: number;
}

export interface Point {
  x: number;
  y: number;
}

export const apply = (t: Affine, p: Point): Point => ({ x: t.a * p.x + t.b * p.y + t.c, y: t.d * p.x + t.e * p.y + t.f });

/** `first` then `second`. */
export const compose = (second: Affine, first: Affine): Affine => ({
  a: second.a * first.a + second.b * first.d,
  b: second.a * first.b + second.b * first.e,
  c: second.a * first.c + second.b * first.f + second.c,
  d: second.d * first.a + second.e * first.d,
  e: second.d * first.b + second.e * first.e,
  f: second.d * first.c + second.e * first.f + second.f,
});

export const translation = (x: number, y: number): Affine => ({ a: 1, b: 0, c: x, d: 0, e: 1, f: y });

/** Turn by `angle` radians about `centre`, scaled by `scale`. */
export function rotationAbout(centre: Point, angle: number, scale = 1): Affine {
  const cos = Math.cos(angle) * scale;
  const sin = Math.sin(angle) * scale;
  return { a: cos, b: -sin, c: centre.x - cos * centre.x + sin * centre.y, d: sin, e: cos, f: centre.y - sin * centre.x - cos * centre.y };
}

/** The scale a map applies (the square root of its determinant's size). */
export const scaleOf = (t: Affine) => Math.sqrt(Math.abs(t.a * t.e - t.b * t.d));

/** The similarity (turn, scale, shift) taking `from` closest to `to` (least squares; two points or more). */
export function fitSimilarity(from: Point[], to: Point[]): Affine {
  const n = from.length;
  const fx = from.reduce((s, p) => s + p.x, 0) / n;
  const fy = from.reduce((s, p) => s + p.y, 0) / n;
  const tx = to.reduce((s, p) => s + p.x, 0) / n;
  const ty = to.reduce((s, p) => s + p.y, 0) / n;
  let re = 0;
  let im = 0;
  let norm = 0;
  for (let i = 0; i < n; i++) {
    const px = from[i]!.x - fx;
    const py = from[i]!.y - fy;
    const qx = to[i]!.x - tx;
    const qy = to[i]!.y - ty;
    // conj(p) · q
    re += px * qx + py * qy;
    im += px * qy - py * qx;
    norm += px * px + py * py;
  }
  const a = norm > 0 ? re / norm : 1;
  const b = norm > 0 ? im / norm : 0;
  return { a, b: -b, c: tx - a * fx + b * fy, d: b, e: a, f: ty - b * fx - a * fy };
}

/** The value below which `share` (0–1) of `values` lie (a histogram: values are 0–255). */
export function percentile(values: Float32Array, share: number, step = 1): number {
  const histogram = new Uint32Array(256);
  let count = 0;
  for (let i = 0; i < values.length; i += step) {
    const value = values[i]! + 0.5;
    histogram[value < 0 ? 0 : value >= 255 ? 255 : value | 0]!++;
    count++;
  }
  const target = share * count;
  let seen = 0;
  for (let value = 0; value < 256; value++) {
    seen += histogram[value]!;
    if (seen > target) return value;
  }
  return 255;
}

/**
 * percentile on a page's grey bytes: the same histogram, in a function of its own so each stays
 * monomorphic (one called with bytes and floats alike reads both through V8's generic element access,
 * a fifth of a page's reading of its areas at 300 dpi).
 */
export function greyPercentile(values: Uint8Array, share: number, step = 1): number {
  const histogram = new Uint32Array(256);
  let count = 0;
  for (let i = 0; i < values.length; i += step) {
    histogram[values[i]!]!++;
    count++;
  }
  const target = share * count;
  let seen = 0;
  for (let value = 0; value < 256; value++) {
    seen += histogram[value]!;
    if (seen > target) return value;
  }
  return 255;
}

/** A rectangle of whole pixels. */
export interface PixelRect {
  left: number;
  top: number;
  width: number;
  height: number;
}
