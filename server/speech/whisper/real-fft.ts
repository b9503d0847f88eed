/**
 * Power spectrum of real frames of any even length, in float64, with no allocation per frame.
 *
 * Whisper's frames are 400 samples: not a power of two, so the fast power-of-two FFTs on npm (fft.js and
 * the like) need Bluestein's detour through 1024-point transforms, and the mixed-radix ones (KISS FFT,
 * PFFFT in WebAssembly) compute in float32, which is not precise enough for the reference's numbers on
 * quiet bins beside loud ones (measured: docs/decisions.md, "Speech service"). This is a Stockham
 * mixed-radix FFT (radices 4, 2, 5, 3 and any other prime) of n/2 complex points, plus the usual
 * split that turns it into the transform of n real points.
 */
export class RealPowerSpectrum {
  /** Number of output bins, n/2 + 1. */
  readonly bins: number;
  private readonly half: number;
  private readonly radices: number[];
  /** Per stage, twiddles w^(j·r) for j < m, 1 ≤ r < p, as (re, im) pairs. */
  private readonly twiddles: Float64Array[];
  /** exp(-2πi k / n) for k ≤ n/2, for the real split. */
  private readonly splitCos: Float64Array;
  private readonly splitSin: Float64Array;
  private readonly generic: Float64Array;
  private re: Float64Array;
  private im: Float64Array;
  private re2: Float64Array;
  private im2: Float64Array;

  constructor(readonly length: number) {
    if (length < 2 || length % 2 !== 0) throw new Error(`real FFT length must be even, got ${length}`);
    const half = length / 2;
    this.half = half;
    this.bins = half + 1;
    this.radices = factor(half);
    this.twiddles = [];
    let n = half;
    for (const p of this.radices) {
      const m = n / p;
      const table = new Float64Array(m * (p - 1) * 2);
      for (let j = 0; j < m; j++) {
        for (let r = 1; r < p; r++) {
          const angle = (-2 * Math.PI * j * r) / n;
          table[(j * (p - 1) + r - 1) * 2] = Math.cos(angle);
          table[(j * (p - 1) + r - 1) * 2 + 1] = Math.sin(angle);
        }
      }
      this.twiddles.push(table);
      n = m;
    }
    this.splitCos = new Float64Array(half + 1);
    this.splitSin = new Float64Array(half + 1);
    for (let k = 0; k <= half; k++) {
      this.splitCos[k] = Math.cos((-2 * Math.PI * k) / length);
      this.splitSin[k] = Math.sin((-2 * Math.PI * k) / length);
    }
    const largest = Math.max(...this.radices, 1);
    this.generic = new Float64Array(largest * 4);
    this.re = new Float64Array(half);
    this.im = new Float64Array(half);
    this.re2 = new Float64Array(half);
    this.im2 = new Float64Array(half);
  }

  /**
   * |X[k]|² for k = 0 … n/2 of the real frame `frame` (length n) into `power` (length n/2 + 1).
   */
  power(frame: Float64Array, power: Float32Array | Float64Array): void {
    const { re, im } = this;
    for (let i = 0; i < this.half; i++) {
      re[i] = frame[2 * i]!;
      im[i] = frame[2 * i + 1]!;
    }
    this.transform(power);
  }

  /**
   * The same for the frame `samples[offset … offset + n)` times `window`, read in place (no frame copy).
   */
  powerOfWindowed(samples: Float32Array, offset: number, window: Float64Array, power: Float32Array | Float64Array): void {
    const { re, im } = this;
    for (let i = 0, j = offset; i < this.half; i++, j += 2) {
      re[i] = samples[j]! * window[2 * i]!;
      im[i] = samples[j + 1]! * window[2 * i + 1]!;
    }
    this.transform(power);
  }

  private transform(power: Float32Array | Float64Array): void {
    const half = this.half;
    // Even samples as the real part, odd ones as the imaginary part (filled by the caller): one complex
    // FFT of n/2 points.
    let re = this.re;
    let im = this.im;
    let outRe = this.re2;
    let outIm = this.im2;
    let n = half;
    let s = 1;
    for (let stage = 0; stage < this.radices.length; stage++) {
      const p = this.radices[stage]!;
      const m = n / p;
      const w = this.twiddles[stage]!;
      if (p === 4) radix4(re, im, outRe, outIm, m, s, w);
      else if (p === 2) radix2(re, im, outRe, outIm, m, s, w);
      else if (p === 5) radix5(re, im, outRe, outIm, m, s, w);
      else if (p === 3) radix3(re, im, outRe, outIm, m, s, w);
      else radixAny(re, im, outRe, outIm, m, s, w, p, this.generic);
      [re, outRe] = [outRe, re];
      [im, outIm] = [outIm, im];
      n = m;
      s *= p;
    }
    // Split Z = FFT(even + i·odd) into X[k] = E[k] + e^(-2πik/n)·O[k].
    const cos = this.splitCos;
    const sin = this.splitSin;
    for (let k = 0; k <= half; k++) {
      const a = k === half ? 0 : k;
      const b = k === 0 ? 0 : half - k;
      const zr = re[a]!;
      const zi = im[a]!;
      const cr = re[b]!;
      const ci = -im[b]!;
      const er = (zr + cr) / 2;
      const ei = (zi + ci) / 2;
      // O = (Z[k] − conj Z[n/2−k]) / 2i
      const or = (zi - ci) / 2;
      const oi = -(zr - cr) / 2;
      const xr = er + cos[k]! * or - sin[k]! * oi;
      const xi = ei + cos[k]! * oi + sin[k]! * or;
      power[k] = xr * xr + xi * xi;
    }
  }
}

/** Radices of n, fours first (fewest passes), then twos, fives, threes, other primes. */
function factor(n: number): number[] {
  const radices: number[] = [];
  for (const p of [4, 2, 5, 3]) {
    while (n % p === 0) {
      radices.push(p);
      n /= p;
    }
  }
  for (let p = 7; n > 1; p += 2) {
    while (n % p === 0) {
      radices.push(p);
      n /= p;
    }
  }
  return radices;
}

// Stockham stage: input x[k + s(j + m q)], output y[k + s(p j + r)] = w^(j r) · Σ_q x_q · e^(-2πi q r / p).

function radix2(xr: Float64Array, xi: Float64Array, yr: Float64Array, yi: Float64Array, m: number, s: number, w: Float64Array) {
  for (let j = 0; j < m; j++) {
    const w1r = w[j * 2]!;
    const w1i = w[j * 2 + 1]!;
    for (let k = 0; k < s; k++) {
      const i0 = k + s * j;
      const i1 = i0 + s * m;
      const ar = xr[i0]!;
      const ai = xi[i0]!;
      const br = xr[i1]!;
      const bi = xi[i1]!;
      const o = k + s * 2 * j;
      yr[o] = ar + br;
      yi[o] = ai + bi;
      const dr = ar - br;
      const di = ai - bi;
      yr[o + s] = dr * w1r - di * w1i;
      yi[o + s] = dr * w1i + di * w1r;
    }
  }
}

function radix4(xr: Float64Array, xi: Float64Array, yr: Float64Array, yi: Float64Array, m: number, s: number, w: Float64Array) {
  const sm = s * m;
  for (let j = 0; j < m; j++) {
    const t = j * 6;
    const w1r = w[t]!;
    const w1i = w[t + 1]!;
    const w2r = w[t + 2]!;
    const w2i = w[t + 3]!;
    const w3r = w[t + 4]!;
    const w3i = w[t + 5]!;
    for (let k = 0; k < s; k++) {
      const i0 = k + s * j;
      const ar = xr[i0]!;
      const ai = xi[i0]!;
      const br = xr[i0 + sm]!;
      const bi = xi[i0 + sm]!;
      const cr = xr[i0 + 2 * sm]!;
      const ci = xi[i0 + 2 * sm]!;
      const dr = xr[i0 + 3 * sm]!;
      const di = xi[i0 + 3 * sm]!;
      const apcR = ar + cr;
      const apcI = ai + ci;
      const amcR = ar - cr;
      const amcI = ai - ci;
      const bpdR = br + dr;
      const bpdI = bi + di;
      // −i (b − d)
      const bmdR = bi - di;
      const bmdI = dr - br;
      const o = k + s * 4 * j;
      yr[o] = apcR + bpdR;
      yi[o] = apcI + bpdI;
      const y1r = amcR + bmdR;
      const y1i = amcI + bmdI;
      yr[o + s] = y1r * w1r - y1i * w1i;
      yi[o + s] = y1r * w1i + y1i * w1r;
      const y2r = apcR - bpdR;
      const y2i = apcI - bpdI;
      yr[o + 2 * s] = y2r * w2r - y2i * w2i;
      yi[o + 2 * s] = y2r * w2i + y2i * w2r;
      const y3r = amcR - bmdR;
      const y3i = amcI - bmdI;
      yr[o + 3 * s] = y3r * w3r - y3i * w3i;
      yi[o + 3 * s] = y3r * w3i + y3i * w3r;
    }
  }
}

const C3 = -0.5;
const S3 = -Math.sqrt(3) / 2;

function radix3(xr: Float64Array, xi: Float64Array, yr: Float64Array, yi: Float64Array, m: number, s: number, w: Float64Array) {
  const sm = s * m;
  for (let j = 0; j < m; j++) {
    const t = j * 4;
    const w1r = w[t]!;
    const w1i = w[t + 1]!;
    const w2r = w[t + 2]!;
    const w2i = w[t + 3]!;
    for (let k = 0; k < s; k++) {
      const i0 = k + s * j;
      const ar = xr[i0]!;
      const ai = xi[i0]!;
      const br = xr[i0 + sm]!;
      const bi = xi[i0 + sm]!;
      const cr = xr[i0 + 2 * sm]!;
      const ci = xi[i0 + 2 * sm]!;
      const sr = br + cr;
      const si = bi + ci;
      const mr = ar + C3 * sr;
      const mi = ai + C3 * si;
      // S3 · i (b − c)
      const nr = -S3 * (bi - ci);
      const ni = S3 * (br - cr);
      const o = k + s * 3 * j;
      yr[o] = ar + sr;
      yi[o] = ai + si;
      const y1r = mr + nr;
      const y1i = mi + ni;
      yr[o + s] = y1r * w1r - y1i * w1i;
      yi[o + s] = y1r * w1i + y1i * w1r;
      const y2r = mr - nr;
      const y2i = mi - ni;
      yr[o + 2 * s] = y2r * w2r - y2i * w2i;
      yi[o + 2 * s] = y2r * w2i + y2i * w2r;
    }
  }
}

const C51 = Math.cos((2 * Math.PI) / 5);
const C52 = Math.cos((4 * Math.PI) / 5);
const S51 = -Math.sin((2 * Math.PI) / 5);
const S52 = -Math.sin((4 * Math.PI) / 5);

function radix5(xr: Float64Array, xi: Float64Array, yr: Float64Array, yi: Float64Array, m: number, s: number, w: Float64Array) {
  const sm = s * m;
  for (let j = 0; j < m; j++) {
    const t = j * 8;
    const w1r = w[t]!;
    const w1i = w[t + 1]!;
    const w2r = w[t + 2]!;
    const w2i = w[t + 3]!;
    const w3r = w[t + 4]!;
    const w3i = w[t + 5]!;
    const w4r = w[t + 6]!;
    const w4i = w[t + 7]!;
    for (let k = 0; k < s; k++) {
      const i0 = k + s * j;
      const ar = xr[i0]!;
      const ai = xi[i0]!;
      const br = xr[i0 + sm]!;
      const bi = xi[i0 + sm]!;
      const cr = xr[i0 + 2 * sm]!;
      const ci = xi[i0 + 2 * sm]!;
      const dr = xr[i0 + 3 * sm]!;
      const di = xi[i0 + 3 * sm]!;
      const er = xr[i0 + 4 * sm]!;
      const ei = xi[i0 + 4 * sm]!;
      // Pairs symmetric in q ↔ 5 − q.
      const p1r = br + er;
      const p1i = bi + ei;
      const q1r = br - er;
      const q1i = bi - ei;
      const p2r = cr + dr;
      const p2i = ci + di;
      const q2r = cr - dr;
      const q2i = ci - di;
      const m1r = ar + C51 * p1r + C52 * p2r;
      const m1i = ai + C51 * p1i + C52 * p2i;
      const m2r = ar + C52 * p1r + C51 * p2r;
      const m2i = ai + C52 * p1i + C51 * p2i;
      // i · (S51 q1 + S52 q2) and i · (S52 q1 − S51 q2)
      const n1r = -(S51 * q1i + S52 * q2i);
      const n1i = S51 * q1r + S52 * q2r;
      const n2r = -(S52 * q1i - S51 * q2i);
      const n2i = S52 * q1r - S51 * q2r;
      const o = k + s * 5 * j;
      yr[o] = ar + p1r + p2r;
      yi[o] = ai + p1i + p2i;
      let vr = m1r + n1r;
      let vi = m1i + n1i;
      yr[o + s] = vr * w1r - vi * w1i;
      yi[o + s] = vr * w1i + vi * w1r;
      vr = m2r + n2r;
      vi = m2i + n2i;
      yr[o + 2 * s] = vr * w2r - vi * w2i;
      yi[o + 2 * s] = vr * w2i + vi * w2r;
      vr = m2r - n2r;
      vi = m2i - n2i;
      yr[o + 3 * s] = vr * w3r - vi * w3i;
      yi[o + 3 * s] = vr * w3i + vi * w3r;
      vr = m1r - n1r;
      vi = m1i - n1i;
      yr[o + 4 * s] = vr * w4r - vi * w4i;
      yi[o + 4 * s] = vr * w4i + vi * w4r;
    }
  }
}

/** Any other prime radix: the plain p-point DFT per butterfly (never used by Whisper's 400-sample frames). */
function radixAny(
  xr: Float64Array,
  xi: Float64Array,
  yr: Float64Array,
  yi: Float64Array,
  m: number,
  s: number,
  w: Float64Array,
  p: number,
  scratch: Float64Array,
) {
  const sm = s * m;
  for (let j = 0; j < m; j++) {
    for (let k = 0; k < s; k++) {
      const i0 = k + s * j;
      for (let q = 0; q < p; q++) {
        scratch[q * 2] = xr[i0 + q * sm]!;
        scratch[q * 2 + 1] = xi[i0 + q * sm]!;
      }
      const o = k + s * p * j;
      for (let r = 0; r < p; r++) {
        let sr = 0;
        let si = 0;
        for (let q = 0; q < p; q++) {
          const angle = (-2 * Math.PI * ((q * r) % p)) / p;
          const c = Math.cos(angle);
          const d = Math.sin(angle);
          sr += scratch[q * 2]! * c - scratch[q * 2 + 1]! * d;
          si += scratch[q * 2]! * d + scratch[q * 2 + 1]! * c;
        }
        if (r === 0) {
          yr[o] = sr;
          yi[o] = si;
        } else {
          const t = (j * (p - 1) + r - 1) * 2;
          yr[o + r * s] = sr * w[t]! - si * w[t + 1]!;
          yi[o + r * s] = sr * w[t + 1]! + si * w[t]!;
        }
      }
    }
  }
}
