/**
 * 24 kHz → 16 kHz, streamed: OpenAI's realtime clients send 24 kHz PCM16, the engine takes 16 kHz.
 * Each output sample is a windowed-sinc low-pass (cut at the new Nyquist, 8 kHz, so that nothing above
 * it folds back into the speech band) evaluated at every 1.5th input sample. The last HALF input
 * samples (0.7 ms) wait for the next chunk.
 */

/** Input samples on each side of an output sample. */
const HALF = 16;
/** The cut-off (8 kHz) as a fraction of the input rate (24 kHz), times two. */
const BAND = 2 / 3;

/** The taps for an output `phase` (0 or 0.5) input samples past an input sample; normalised to unit gain. */
function taps(phase: number): Float32Array {
  const result = new Float32Array(2 * HALF + 1);
  let sum = 0;
  for (let m = -HALF; m <= HALF; m++) {
    const d = phase - m;
    const x = Math.PI * BAND * d;
    const sinc = d === 0 ? 1 : Math.sin(x) / x;
    const hann = 0.5 + 0.5 * Math.cos((Math.PI * d) / (HALF + 1));
    result[m + HALF] = BAND * sinc * hann;
    sum += result[m + HALF]!;
  }
  for (let i = 0; i < result.length; i++) result[i]! /= sum;
  return result;
}
const WHOLE = taps(0);
const HALFWAY = taps(0.5);

export class Resampler24kTo16k {
  /** Input not yet consumed; `start` is the absolute index of its first sample (silence before the stream). */
  private buffer = new Float32Array(HALF);
  private start = -HALF;
  private produced = 0;

  push(input: Float32Array): Float32Array {
    const buffer = new Float32Array(this.buffer.length + input.length);
    buffer.set(this.buffer);
    buffer.set(input, this.buffer.length);
    const end = this.start + buffer.length;
    const out = new Float32Array(Math.max(0, Math.ceil(((end - HALF) * 2) / 3) - this.produced + 1));
    let count = 0;
    for (;;) {
      // Output k sits at input 1.5 k: sample n = ⌊3k/2⌋, plus half a sample when k is odd.
      const n = Math.floor((this.produced * 3) / 2);
      if (n + HALF >= end) break;
      const filter = this.produced % 2 === 0 ? WHOLE : HALFWAY;
      const base = n - HALF - this.start;
      let sum = 0;
      for (let m = 0; m < filter.length; m++) sum += buffer[base + m]! * filter[m]!;
      out[count++] = Math.max(-1, Math.min(1, sum));
      this.produced++;
    }
    const keep = Math.floor((this.produced * 3) / 2) - HALF - this.start;
    this.buffer = buffer.slice(keep);
    this.start += keep;
    return out.subarray(0, count);
  }
}
