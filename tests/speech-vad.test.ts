/**
 * Silero VAD (issue 20) on the committed fixtures (scripts/make-vad-fixtures.sh): the speech-region
 * finder, the windows of speech the engine decodes and their way back to the original time, and the
 * socket's endpointer. The model is real (the file of @ricky0123/vad-web); nothing here is timed.
 */
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { decodeAudioFile } from "../server/speech/audio";
import { EnergyEndpointer, type Endpointer, VadEndpointer } from "../server/speech/vad/endpointer";
import { END_PADDING_MS, FILE_VAD_DEFAULTS, type VadParameters, findSpeechRegions } from "../server/speech/vad/regions";
import { VAD_CHUNK_SAMPLES, VadStream, speechProbabilities } from "../server/speech/vad/silero";
import { originalTime, speechWindows, windowsToDecode } from "../server/speech/vad/windows";
import { audioFixturesDir } from "./support/speech-audio";
import { testSpeechConfig } from "./support/speech-server";

const RATE = 16_000;
const vadDir = path.join(audioFixturesDir, "vad");
/** Length of each spoken phrase, seconds (written by the fixture script). */
const phrase = Object.fromEntries(
  fs
    .readFileSync(path.join(vadDir, "phrase-seconds.txt"), "utf8")
    .trim()
    .split("\n")
    .map((line) => [line.split(" ")[0]!, Number(line.split(" ")[1])]),
);

const clips: Record<string, Float32Array> = {};
const load = (name: string) => decodeAudioFile(testSpeechConfig().ffmpegPath, path.join(vadDir, `${name}.flac`));

beforeAll(async () => {
  for (const name of ["breath-pauses", "two-sentences", "late-speech", "noisy-speech", "noise"]) clips[name] = await load(name);
});

const seconds = (regions: { start: number; end: number }[]) => regions.map((region) => [region.start / RATE, region.end / RATE]);
const regionsOf = (name: string, parameters: Partial<VadParameters> = {}) =>
  findSpeechRegions(speechProbabilities(clips[name]!), VAD_CHUNK_SAMPLES, clips[name]!.length, { ...FILE_VAD_DEFAULTS, ...parameters });

/** Where the speech is in each fixture, seconds (the script's layout). */
const speech = {
  breath: [1, 1 + phrase.a1! + 0.3 + phrase.a2! + 0.4 + phrase.a3!],
  twoFirst: [1, 1 + phrase.b1! + 0.35 + phrase.c1!],
  get twoSecond() {
    return [this.twoFirst[1]! + 3, this.twoFirst[1]! + 3 + phrase.a1!];
  },
  late: [10, 10 + phrase.b1! + 0.3 + phrase.c1!],
};

/** A region covers the speech and keeps no more than its padding (and a little VAD lag) around it. */
function expectAround(region: number[], [from, to]: number[], prefixMs = FILE_VAD_DEFAULTS.prefixPaddingMs) {
  expect(region[0]).toBeLessThanOrEqual(from! + 0.1);
  expect(region[0]).toBeGreaterThanOrEqual(from! - prefixMs / 1000 - 0.1);
  expect(region[1]).toBeGreaterThanOrEqual(to! - 0.1);
  expect(region[1]).toBeLessThanOrEqual(to! + END_PADDING_MS / 1000 + 0.35);
}

describe("speech regions of the fixtures (Silero VAD)", () => {
  it("finds one region for a sentence with 300 and 400 ms pauses for breath, whatever the silence duration", () => {
    for (const silenceDurationMs of [FILE_VAD_DEFAULTS.silenceDurationMs, 500, 1000]) {
      const regions = seconds(regionsOf("breath-pauses", { silenceDurationMs }));
      expect(regions).toHaveLength(1);
      expectAround(regions[0]!, speech.breath);
    }
  });

  it("splits two sentences three seconds apart, and joins them when the silence duration is longer than the gap", () => {
    const regions = seconds(regionsOf("two-sentences"));
    expect(regions).toHaveLength(2);
    expectAround(regions[0]!, speech.twoFirst);
    expectAround(regions[1]!, speech.twoSecond);
    expect(seconds(regionsOf("two-sentences", { silenceDurationMs: 4000 }))).toHaveLength(1);
  });

  it("places the padding as asked: prefix_padding_ms before the speech", () => {
    const none = seconds(regionsOf("late-speech", { prefixPaddingMs: 0, silenceDurationMs: 500 }));
    const wide = seconds(regionsOf("late-speech", { prefixPaddingMs: 1000, silenceDurationMs: 500 }));
    expect(none).toHaveLength(1);
    expectAround(none[0]!, speech.late, 0);
    expect(none[0]![0]! - wide[0]![0]!).toBeCloseTo(1, 2);
  });

  it("finds the speech under low background noise, and nothing in noise alone", () => {
    const noisy = seconds(regionsOf("noisy-speech"));
    expect(noisy).toHaveLength(2);
    expect(noisy[0]![0]).toBeGreaterThan(0.5);
    expect(noisy[1]![0]).toBeGreaterThan(noisy[0]![1]! + 2);
    expect(regionsOf("noise")).toEqual([]);
    expect(findSpeechRegions(speechProbabilities(new Float32Array(RATE * 3)), VAD_CHUNK_SAMPLES, RATE * 3, FILE_VAD_DEFAULTS)).toEqual([]);
  });

  it("gives a long recording in batched lanes the regions of one stream", () => {
    // 2.6 minutes: two lanes of about 80 s.
    const one = clips["two-sentences"]!;
    const long = new Float32Array(one.length * 15);
    for (let i = 0; i < 15; i++) long.set(one, i * one.length);
    const stream = new VadStream();
    const sequential = new Float32Array(Math.ceil(long.length / VAD_CHUNK_SAMPLES));
    for (let k = 0; k < sequential.length; k++) {
      const chunk = new Float32Array(VAD_CHUNK_SAMPLES);
      chunk.set(long.subarray(k * VAD_CHUNK_SAMPLES, (k + 1) * VAD_CHUNK_SAMPLES));
      sequential[k] = stream.probability(chunk);
    }
    const batched = speechProbabilities(long);
    const regions = (probabilities: Float32Array) => seconds(findSpeechRegions(probabilities, VAD_CHUNK_SAMPLES, long.length, FILE_VAD_DEFAULTS));
    // The same regions, to a chunk or two (a probability near the threshold may fall either side).
    expect(regions(batched)).toHaveLength(30);
    expect(regions(sequential)).toHaveLength(30);
    for (const [index, [start, end]] of regions(batched).entries()) {
      expect(start).toBeCloseTo(regions(sequential)[index]![0]!, 1);
      expect(end).toBeCloseTo(regions(sequential)[index]![1]!, 1);
    }
  });
});

describe("the region finder's rules (probabilities given)", () => {
  const chunkMs = (VAD_CHUNK_SAMPLES / RATE) * 1000; // 32 ms
  const run = (values: number[], parameters: Partial<VadParameters> = {}) =>
    findSpeechRegions(values, VAD_CHUNK_SAMPLES, values.length * VAD_CHUNK_SAMPLES, { threshold: 0.5, prefixPaddingMs: 0, silenceDurationMs: 200, ...parameters }).map((region) => [
      region.start / VAD_CHUNK_SAMPLES,
      region.end / VAD_CHUNK_SAMPLES,
    ]);
  const padChunks = END_PADDING_MS / chunkMs; // 6.25

  it("starts at the threshold, and only a probability under threshold − 0.15 counts as silence", () => {
    // 0.4 is between the marks: it neither starts speech nor ends it.
    const between = [0.4, 0.4, 0.9, 0.9, 0.9, ...Array(20).fill(0.4), 0.1, ...Array(10).fill(0.1)];
    const [region] = run(between);
    expect(region![0]).toBe(2);
    expect(region![1]).toBeCloseTo(25 + padChunks, 0);
  });

  it("ends after silence_duration_ms of silence, not before; a chunk back at the threshold cancels the count", () => {
    const speechChunks = Array(10).fill(0.9);
    const gap = (chunks: number) => [...speechChunks, ...Array(chunks).fill(0), ...speechChunks, ...Array(40).fill(0)];
    // 6 chunks (192 ms) of silence < 200 ms: one region; 7 chunks (224 ms): two (seen without padding).
    expect(run(gap(6))).toHaveLength(1);
    expect(findSpeechRegions(gap(7), VAD_CHUNK_SAMPLES, gap(7).length * VAD_CHUNK_SAMPLES, { threshold: 0.5, prefixPaddingMs: 0, silenceDurationMs: 200 })).toHaveLength(
      // The two raw regions are 7 chunks apart and the end padding is 6.25 chunks: still apart.
      2,
    );
    const interrupted = [...speechChunks, 0, 0, 0, 0, 0, 0.6, 0, 0, 0, 0, 0, ...speechChunks, ...Array(40).fill(0)];
    expect(run(interrupted)).toHaveLength(1);
  });

  it("drops bursts shorter than ~0.1 s, merges regions whose padding meets, and clamps to the audio", () => {
    expect(run([0, 0.9, 0.9, ...Array(30).fill(0)])).toEqual([]);
    const twoClose = [...Array(10).fill(0.9), ...Array(8).fill(0), ...Array(10).fill(0.9), ...Array(3).fill(0)];
    expect(run(twoClose, { prefixPaddingMs: 100 })).toEqual([[0, 31]]);
  });
});

describe("windows of speech and their times", () => {
  const samples = Float32Array.from({ length: 100 * RATE }, (_, i) => i);
  const at = (s: number) => s * RATE;

  it("joins regions up to the window size, never splits a region that fits a window, and cuts a longer one", () => {
    const windows = speechWindows(samples, [{ start: at(10), end: at(13) }, { start: at(20), end: at(40) }, { start: at(50), end: at(95) }], at(30));
    expect(windows.map((window) => window.samples.length / RATE)).toEqual([23, 30, 15]);
    expect(windows[0]!.samples[at(3)]).toBe(at(20)); // the second region follows the first, without the silence
    for (const window of windows) expect(window.samples.length).toBeLessThanOrEqual(at(30));
  });

  it("maps a window time back to the original audio; a seam is the end of one piece or the start of the next", () => {
    const [window] = speechWindows(samples, [{ start: at(10), end: at(13) }, { start: at(20), end: at(25) }], at(30));
    expect(originalTime(window!, 1, "start")).toBe(11);
    expect(originalTime(window!, 3, "end")).toBe(13);
    expect(originalTime(window!, 3, "start")).toBe(20);
    expect(originalTime(window!, 4.5, "start")).toBe(21.5);
    expect(originalTime(window!, 29, "end")).toBe(25); // past the window's audio: its end
  });

  it("without VAD, cuts the whole audio every 30 s as before", () => {
    const windows = windowsToDecode(samples.subarray(0, at(65)), undefined, at(30), () => false);
    expect(windows.map((window) => window.pieces[0]!.from / RATE)).toEqual([0, 30, 60]);
  });
});

/** Feeds 20 ms frames; the utterances as [start, end] seconds (end null: still open at the end). */
function utterances(endpointer: Endpointer, samples: Float32Array) {
  const found: [number, number | null][] = [];
  let start: number | null = null;
  for (let i = 0; i + 320 <= samples.length; i += 320) {
    const step = endpointer.push(samples.subarray(i, i + 320));
    if (step.speaking && start === null) start = i / RATE;
    if (step.ended) {
      found.push([start!, (i + 320) / RATE]);
      start = null;
    }
  }
  if (start !== null) found.push([start, null]);
  return found;
}

describe("the socket's endpointer (20 ms frames)", () => {
  it("ends a sentence with pauses for breath once, after it, not in a pause", () => {
    const found = utterances(new VadEndpointer(), clips["breath-pauses"]!);
    expect(found).toHaveLength(1);
    const [start, end] = found[0]!;
    expect(start).toBeGreaterThan(speech.breath[0]! - 0.1);
    expect(end).toBeGreaterThan(speech.breath[1]! + 0.5); // 500 ms of silence, counted from the VAD's drop
    expect(end).toBeLessThan(speech.breath[1]! + 0.7);
  });

  it("gives two utterances for two sentences three seconds apart", () => {
    const found = utterances(new VadEndpointer(), clips["two-sentences"]!);
    expect(found).toHaveLength(2);
    expect(found[1]![0]).toBeGreaterThan(speech.twoSecond[0]! - 0.1);
  });

  it("hears nothing in noise that the old energy gate took for a voice that never ends", () => {
    expect(utterances(new VadEndpointer(), clips.noise!)).toEqual([]);
    expect(utterances(new EnergyEndpointer(), clips.noise!)).toEqual([[expect.closeTo(0, 1), null]]);
    expect(utterances(new VadEndpointer(), clips["noisy-speech"]!)).toHaveLength(2);
  });
});
