/**
 * Markbook's log-mel features (server/speech/whisper/features.ts, its own FFT in real-fft.ts) against the
 * reference: transformers.js' WhisperFeatureExtractor, `processor(samples).input_features`, on silence,
 * tones, noise and speech-like audio, short and full windows, loud and quiet. The encoder sees these
 * numbers, so they must be the reference's (max abs difference ≤ 1e-4; in practice ~2e-7).
 */
import { AutoProcessor, WhisperFeatureExtractor, env as transformersEnv } from "@huggingface/transformers";
import { beforeAll, describe, expect, it } from "vitest";
import { logMelFeatures } from "../server/speech/whisper/features";
import { RealPowerSpectrum } from "../server/speech/whisper/real-fft";
import { repeatedSpeechWav } from "./support/speech-audio";
import { TEST_MODEL_FOLDER, testModelAvailable, testModelsDir } from "./support/speech-server";

/* eslint-disable @typescript-eslint/no-explicit-any -- transformers.js' processor and tensors, used loosely here */
const RATE = 16_000;
const TOLERANCE = 1e-4;

function maxDifference(a: ArrayLike<number>, b: ArrayLike<number>) {
  expect(a.length).toBe(b.length);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

/** Speech-like audio (the speech fixture repeated), scaled by `gain`. */
function speech(seconds: number, gain = 1) {
  const wav = repeatedSpeechWav(seconds);
  const samples = new Float32Array((wav.length - 44) / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = (wav.readInt16LE(44 + i * 2) / 32768) * gain;
  return samples;
}
const tone = (seconds: number, hertz: number, amplitude: number) =>
  Float32Array.from({ length: Math.round(seconds * RATE) }, (_, i) => amplitude * Math.sin((2 * Math.PI * hertz * i) / RATE));
function noise(seconds: number, amplitude: number, seed = 11) {
  return Float32Array.from({ length: Math.round(seconds * RATE) }, () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return amplitude * (2 * (seed / 2 ** 31) - 1);
  });
}
const mixed = (...parts: Float32Array[]) => {
  const out = new Float32Array(Math.max(...parts.map((part) => part.length)));
  for (const part of parts) for (let i = 0; i < part.length; i++) out[i]! += part[i]!;
  return out;
};
/** Speech scaled so that its loudest sample is at `peak` (full scale is 1). */
function speechPeakingAt(seconds: number, peak: number) {
  const samples = speech(seconds);
  let max = 0;
  for (const value of samples) max = Math.max(max, Math.abs(value));
  return samples.map((value) => (value / max) * peak);
}

const fixtures: [string, () => Float32Array][] = [
  ["silence, 30 s", () => new Float32Array(30 * RATE)],
  ["no samples", () => new Float32Array(0)],
  ["one sample", () => Float32Array.of(0.5)],
  ["440 Hz tone at full scale, 30 s", () => tone(30, 440, 0.999)],
  ["1 kHz tone at −80 dBFS, 3 s", () => tone(3, 1000, 1e-4)],
  ["7.9 kHz tone, 0.3 s", () => tone(0.3, 7900, 0.5)],
  ["4 kHz tone exactly on a bin, 30 s", () => tone(30, 4000, 0.9)],
  ["white noise, 30 s", () => noise(30, 0.5)],
  ["quiet white noise, 3 s", () => noise(3, 1e-5)],
  ["speech, 0.3 s", () => speech(0.3)],
  ["speech, 3 s", () => speech(3)],
  ["speech, 30 s", () => speech(30)],
  ["loud speech peaking at full scale, 30 s", () => speechPeakingAt(30, 1)],
  ["quiet speech (−60 dB), 30 s", () => speech(30, 0.001)],
  ["quiet speech (−60 dB), 3 s", () => speech(3, 0.001)],
  ["speech ending 2 ms short of 30 s (the end's reflection mixes audio and padding)", () => speech(29.998)],
  ["speech ending just under the 24 s where frames still see zeros", () => speech(23.7)],
  ["a loud tone over quiet speech (80 dB apart within a frame)", () => mixed(tone(30, 3000, 0.9), speech(30, 0.001))],
  ["speech longer than 30 s (the reference cuts it)", () => speech(35)],
];

describe.skipIf(!testModelAvailable)("log-mel features against transformers.js' WhisperFeatureExtractor", () => {
  let processor: any;
  beforeAll(async () => {
    transformersEnv.localModelPath = testModelsDir;
    transformersEnv.allowRemoteModels = false;
    processor = await AutoProcessor.from_pretrained(TEST_MODEL_FOLDER);
  });

  it.each(fixtures)("%s", async (_name, make) => {
    const samples = make();
    const expected = (await processor(samples)).input_features;
    const features = await logMelFeatures(processor, samples);
    expect(features.dims).toEqual([1, 80, 3000]);
    expect(features.type).toBe("float32");
    expect(maxDifference(features.data as Float32Array, expected.data as Float32Array)).toBeLessThanOrEqual(TOLERANCE);
  });

  it("leaves the caller's samples alone and gives the same answer twice (no state kept between calls)", async () => {
    const samples = speech(3);
    const copy = samples.slice();
    const first = (await logMelFeatures(processor, samples)).data as Float32Array;
    await logMelFeatures(processor, tone(30, 440, 0.999));
    const second = (await logMelFeatures(processor, samples)).data as Float32Array;
    expect(samples).toEqual(copy);
    expect(second).toEqual(first);
  });

  it("tells different audio apart (the comparison above is not vacuous)", async () => {
    const a = (await logMelFeatures(processor, speech(3))).data as Float32Array;
    const b = (await logMelFeatures(processor, speech(3, 0.5))).data as Float32Array;
    const c = (await logMelFeatures(processor, tone(3, 1000, 0.5))).data as Float32Array;
    // Half the gain is a quarter of the power: every value above the floor moves by log10(4) / 4 ≈ 0.15.
    expect(maxDifference(a, b)).toBeGreaterThan(0.1);
    expect(maxDifference(a, c)).toBeGreaterThan(0.5);
  });

  it("128 mel bins (large-v3's extractor config): the same extractor class with feature_size 128", async () => {
    const config = { ...processor.feature_extractor.config, feature_size: 128, mel_filters: undefined };
    const extractor = new WhisperFeatureExtractor(config);
    expect(extractor.config.mel_filters).toHaveLength(128);
    // A processor as the engine holds one: callable, with its feature extractor.
    const processor128 = Object.assign((samples: Float32Array) => extractor(samples), { feature_extractor: extractor });
    for (const samples of [speech(30), speech(3, 0.001), tone(30, 440, 0.999), new Float32Array(0)]) {
      const expected = (await extractor(samples)).input_features;
      const features = await logMelFeatures(processor128, samples);
      expect(features.dims).toEqual([1, 128, 3000]);
      expect(maxDifference(features.data as Float32Array, expected.data as Float32Array)).toBeLessThanOrEqual(TOLERANCE);
    }
  });
});

describe("the real FFT's power spectrum against a direct DFT", () => {
  function directPower(frame: Float64Array) {
    const n = frame.length;
    return Float64Array.from({ length: n / 2 + 1 }, (_, k) => {
      let re = 0;
      let im = 0;
      for (let j = 0; j < n; j++) {
        re += frame[j]! * Math.cos((2 * Math.PI * j * k) / n);
        im -= frame[j]! * Math.sin((2 * Math.PI * j * k) / n);
      }
      return re * re + im * im;
    });
  }

  // 400 is Whisper's (radices 4, 2, 5, 5); the others reach the radix-3 and any-prime paths and odd stage orders.
  it.each([400, 2, 4, 6, 10, 24, 42, 98, 512])("%s points", (length) => {
    const fft = new RealPowerSpectrum(length);
    const frame = Float64Array.from({ length }, (_, i) => Math.sin(i * 0.37) + 0.5 * Math.cos(i * 1.9) + (i % 7) / 10 - 0.3);
    const power = new Float64Array(fft.bins);
    fft.power(frame, power);
    const expected = directPower(frame);
    const scale = Math.max(...expected);
    for (let k = 0; k < fft.bins; k++) expect(Math.abs(power[k]! - expected[k]!) / scale).toBeLessThan(1e-12);
  });

  it("refuses an odd length", () => {
    expect(() => new RealPowerSpectrum(401)).toThrow(/even/);
  });
});
