/**
 * Verified decoding: Markbook's Whisper engine (transcribeWithWhisper) decodes exactly the tokens that
 * transformers.js' own `WhisperForConditionalGeneration.generate()` decodes, in a plain
 * `pipeline('automatic-speech-recognition')` loaded by transformers.js from the same folder (q8), for the
 * same audio, prompt and settings, greedy (temperature 0, no fallback). The engine's decodes are observed
 * (not replaced) at `decodeWindow`, so the engine runs its own way end to end: log-mel, encoder,
 * language step, prompt, window walk.
 *
 * The one input the reference shares with the engine is the encoder output (except in the first case):
 * the engine's encoder runs with fused attention (onnx-graph.ts), whose float rounding differs from the
 * exported graph's, and that is enough to flip a close timestamp decision of the random-weight model.
 * The encoder rewrite has its own test (speech-engine-memory.test.ts); the log-mel is compared here.
 *
 * The model has random weights: tokens are arbitrary but deterministic, so only equality is asserted,
 * with lengths checked so that an empty decode cannot pass for an equal one.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import * as transformers from "@huggingface/transformers";
import { Tensor, env as transformersEnv, pipeline } from "@huggingface/transformers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { ACCEPTED_FORMATS, decodeAudioFile } from "../server/speech/audio";
import { bundledFfmpegPath } from "../server/speech/config";
import type { EngineSettings, TranscribeRequest } from "../server/speech/engine-protocol";
import { CancelledError, type LoadedWhisper, loadWhisper, logMelFeatures, transcribeWithWhisper } from "../server/speech/whisper-engine";
import type { WindowDecode, WindowDecoding } from "../server/speech/whisper/decode-window";
import { applyLogitRules, logitRulesFor } from "../server/speech/whisper/logit-rules";
import { COST, ONNX_SPIN, timeoutFor } from "./support/busy-machine";
import { audioFixturesDir, repeatedSpeechSamples } from "./support/speech-audio";
import { TEST_MODEL_FOLDER, testModelAvailable, testModelsDir } from "./support/speech-server";

/* eslint-disable @typescript-eslint/no-explicit-any -- transformers.js' pipeline and outputs are loosely typed */

/** Every decode the engine makes, as it made it. */
const observed = vi.hoisted(() => [] as { job: WindowDecoding; temperature: number; decoded: WindowDecode }[]);
vi.mock("../server/speech/whisper/decode-window", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../server/speech/whisper/decode-window")>();
  return {
    ...actual,
    decodeWindow: async (job: WindowDecoding, temperature: number) => {
      const decoded = await actual.decodeWindow(job, temperature);
      observed.push({ job, temperature, decoded });
      return decoded;
    },
  };
});

const SAMPLE_RATE = 16_000;
const WINDOW_SAMPLES = 30 * SAMPLE_RATE;
/** Small budgets keep the file to about a minute; the minimum makes every decode long enough to mean something. */
const MAX_NEW_TOKENS = 32;
const MIN_NEW_TOKENS = 24;
const TIME_TOLERANCE = 0.02;

const settings: EngineSettings = {
  modelsDir: testModelsDir,
  allowRemoteModels: false,
  hubUrl: "https://huggingface.co",
  dtype: "q8",
  intraOpThreads: 2,
  modelTtlSeconds: 60,
  maxNewTokens: MAX_NEW_TOKENS,
  fallbackTemperatures: [],
  logprobThreshold: -1,
  compressionRatioThreshold: 2.4,
  noSpeechThreshold: 0.6,
  minNewTokens: MIN_NEW_TOKENS,
};

/** Deterministic noise over a tone: audio unlike the speech fixture. */
function toneAndNoise(seconds: number): Float32Array {
  let seed = 11;
  return Float32Array.from({ length: Math.round(seconds * SAMPLE_RATE) }, (_, i) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return 0.3 * Math.sin(i / 7) * Math.sin(i / 3000) + 0.05 * (seed / 2 ** 31 - 0.5);
  });
}

/** The encoder output the engine decoded the window from, as a transformers.js tensor. */
const encoderOutputsOf = (job: WindowDecoding) => new Tensor("float32", job.cross.encoderHiddenStates.data, job.cross.encoderHiddenStates.dims);

function maxDifference(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

describe.skipIf(!testModelAvailable)("Markbook's Whisper engine decodes the tokens transformers.js' pipeline decodes", () => {
  let loaded: LoadedWhisper;
  let reference: any;

  beforeAll(async () => {
    transformersEnv.localModelPath = testModelsDir;
    transformersEnv.allowLocalModels = true;
    transformersEnv.allowRemoteModels = false;
    loaded = await loadWhisper(TEST_MODEL_FOLDER, settings);
    reference = await pipeline("automatic-speech-recognition", TEST_MODEL_FOLDER, { dtype: "q8", session_options: { intraOpNumThreads: 2 } });
    // transformers.js drops encoder_outputs from generate()'s inputs unless told it is one.
    reference.model.forward_params = [...reference.model.forward_params, "encoder_outputs"];
  }, timeoutFor(ONNX_SPIN * 2 * COST.speechModelLoad));

  const transcribe = async (samples: Float32Array, request: Partial<TranscribeRequest> = {}) => {
    observed.length = 0;
    const result = await transcribeWithWhisper(
      loaded,
      { model: "tiny", source: TEST_MODEL_FOLDER, samples, task: "transcribe", temperature: 0, wordTimestamps: false, ...request },
      settings,
      () => false,
    );
    return { result, windows: [...observed] };
  };

  /** transformers.js' generate() for one window, greedy, with the given decoder prompt; its own encoder unless given one. */
  const referenceDecode = async (
    samples: Float32Array,
    initTokens: number[],
    options: { timestamps: boolean; words?: boolean; encoderOutputs?: Tensor },
  ): Promise<{ tokens: number[]; generated: number; times: number[] | null; features: Tensor }> => {
    const features: Tensor = (await reference.processor(samples)).input_features;
    const output = await reference.model.generate({
      inputs: features,
      ...(options.encoderOutputs ? { encoder_outputs: options.encoderOutputs } : {}),
      decoder_input_ids: initTokens,
      return_timestamps: options.timestamps,
      max_new_tokens: MAX_NEW_TOKENS,
      min_new_tokens: MIN_NEW_TOKENS,
      ...(options.words ? { return_token_timestamps: true, num_frames: Math.floor(samples.length / 160) } : {}),
    });
    const sequence = (options.words ? output.sequences : output) as Tensor;
    const generated = (sequence.tolist()[0] as bigint[]).map(Number).slice(initTokens.length);
    const times = options.words ? (output.token_timestamps.tolist()[0] as number[]).slice(initTokens.length).map(Number) : null;
    const tokens = generated.at(-1) === loaded.tokens.eot ? generated.slice(0, -1) : generated;
    return { tokens, generated: generated.length, times, features };
  };

  /** The decoder prompt built independently of prompt.ts: OpenAI's layout. */
  const promptFor = (options: { language: string; task?: "transcribe" | "translate"; timestamps: boolean; previous?: number[] }) => {
    const { tokens } = loaded;
    const previous = (options.previous ?? []).slice(-223);
    return [
      ...(previous.length > 0 ? [tokens.startOfPrev, ...previous] : []),
      tokens.sot,
      tokens.languageIds.get(options.language)!,
      options.task === "translate" ? tokens.translate : tokens.transcribe,
      ...(options.timestamps ? [] : [tokens.noTimestamps]),
    ];
  };

  /** The engine's only window against the reference decoding the same audio from the same encoder output. */
  const expectSameWindow = async (samples: Float32Array, request: Partial<TranscribeRequest>, expected: { language: string; timestamps: boolean; previous?: number[] }) => {
    const { windows } = await transcribe(samples, request);
    expect(windows).toHaveLength(1);
    const [{ job, decoded, temperature }] = windows as [(typeof windows)[number]];
    expect(temperature).toBe(0);
    const initTokens = promptFor({ ...expected, task: request.task });
    expect(job.initTokens).toEqual(initTokens);
    const ours = await referenceDecode(samples, initTokens, { timestamps: expected.timestamps, words: request.wordTimestamps, encoderOutputs: encoderOutputsOf(job) });
    const features = await logMelFeatures(loaded.processor, samples);
    expect(maxDifference(features.data as Float32Array, ours.features.data as Float32Array)).toBeLessThan(1e-4);
    expect(decoded.generated).toBeGreaterThanOrEqual(MIN_NEW_TOKENS);
    expect(decoded.tokens).toEqual(ours.tokens);
    expect(decoded.generated).toBe(ours.generated);
    return { decoded, reference: ours };
  };

  const decodeTimeout = (decodes: number) => timeoutFor(ONNX_SPIN * decodes * 2 * COST.speechDecode);

  it("plain text, the reference's own log-mel and encoder included", { timeout: decodeTimeout(1) }, async () => {
    const samples = repeatedSpeechSamples(12);
    const { windows } = await transcribe(samples, { language: "en", timestamps: false });
    expect(windows).toHaveLength(1);
    const initTokens = promptFor({ language: "en", timestamps: false });
    const ours = await referenceDecode(samples, initTokens, { timestamps: false });
    expect(windows[0]!.decoded.tokens.length).toBeGreaterThanOrEqual(MIN_NEW_TOKENS);
    expect(windows[0]!.decoded.tokens).toEqual(ours.tokens);
  });

  it("plain text on other audio", { timeout: decodeTimeout(1) }, async () => {
    await expectSameWindow(toneAndNoise(7), { language: "fr", timestamps: false }, { language: "fr", timestamps: false });
  });

  it("with timestamp tokens (the timestamp rules)", { timeout: decodeTimeout(2) }, async () => {
    const { decoded } = await expectSameWindow(repeatedSpeechSamples(12), { language: "en" }, { language: "en", timestamps: true });
    // Timestamp tokens were decoded, so their rules were exercised.
    expect(decoded.tokens.filter((id) => id >= loaded.tokens.timestampBegin).length).toBeGreaterThan(2);
    await expectSameWindow(toneAndNoise(20), { language: "de" }, { language: "de", timestamps: true });
  });

  it("translation", { timeout: decodeTimeout(1) }, async () => {
    await expectSameWindow(repeatedSpeechSamples(9), { language: "es", task: "translate" }, { language: "es", timestamps: true });
  });

  it("word timestamps: the same tokens, and each token's time within 20 ms", { timeout: decodeTimeout(1) }, async () => {
    const { decoded, reference: ours } = await expectSameWindow(repeatedSpeechSamples(10), { language: "en", wordTimestamps: true }, { language: "en", timestamps: true });
    expect(decoded.tokenTimes).not.toBeNull();
    const times = ours.times!.slice(0, decoded.tokens.length);
    expect(decoded.tokenTimes!.slice(0, decoded.tokens.length)).toHaveLength(times.length);
    decoded.tokenTimes!.slice(0, decoded.tokens.length).forEach((time, i) => expect(Math.abs(time - times[i]!)).toBeLessThanOrEqual(TIME_TOLERANCE));
    // Not all at zero: the alignment did place tokens in time.
    expect(Math.max(...times)).toBeGreaterThan(0);
  });

  it("a caller's prompt, and a language the engine detected given to the reference", { timeout: decodeTimeout(1) }, async () => {
    const samples = repeatedSpeechSamples(6);
    const prompt = "Pythagoras and the hypotenuse";
    const { result } = await transcribe(samples, { prompt });
    const promptTokens = loaded.processor.tokenizer.encode(` ${prompt}`, { add_special_tokens: false }) as number[];
    expect(promptTokens.length).toBeGreaterThan(3);
    // transformers.js has no language detection: the reference is told the language the engine found.
    await expectSameWindow(samples, { prompt }, { language: result.languageCode, timestamps: true, previous: promptTokens });
  });

  it("long audio: window by window at the same 30 s boundaries, each conditioned on the previous text", { timeout: decodeTimeout(3) }, async () => {
    const samples = repeatedSpeechSamples(65);
    const { windows } = await transcribe(samples, { language: "en" });
    expect(windows).toHaveLength(3);
    let previous: number[] = [];
    for (const [index, { job, decoded }] of windows.entries()) {
      const window = samples.subarray(index * WINDOW_SAMPLES, Math.min((index + 1) * WINDOW_SAMPLES, samples.length));
      expect(job.windowLength).toBe(window.length);
      const initTokens = promptFor({ language: "en", timestamps: true, previous });
      expect(job.initTokens).toEqual(initTokens);
      const ours = await referenceDecode(window, initTokens, { timestamps: true, encoderOutputs: encoderOutputsOf(job) });
      expect(decoded.tokens.length).toBeGreaterThanOrEqual(MIN_NEW_TOKENS);
      expect(decoded.tokens).toEqual(ours.tokens);
      previous = [...previous, ...ours.tokens.filter((id) => id < loaded.tokens.eot)];
    }
    expect(previous.length).toBeGreaterThan(0);
  });

  it("every accepted container: its decoded samples go through the same tokens", { timeout: decodeTimeout(ACCEPTED_FORMATS.length) }, async () => {
    const ffmpeg = process.env.FFMPEG_PATH || bundledFfmpegPath();
    // mp3, mpeg and mpga are the same bytes, m4a and mp4 decode alike, so do wav and flac (lossless): each distinct audio once.
    const compared = new Set<string>();
    for (const format of ACCEPTED_FORMATS) {
      const samples = await decodeAudioFile(ffmpeg, `${audioFixturesDir}/speech.${format}`);
      expect(samples.length, format).toBeGreaterThan(SAMPLE_RATE);
      const digest = createHash("sha256").update(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength)).digest("hex");
      if (compared.has(digest)) continue;
      compared.add(digest);
      await expectSameWindow(samples, { language: "en" }, { language: "en", timestamps: true });
    }
    expect(compared.size).toBeGreaterThanOrEqual(5);
  });
  it("stops at the next decoder step once the job is cancelled", { timeout: decodeTimeout(1) }, async () => {
    let checks = 0;
    const cancelAfter = 10;
    const outcome = transcribeWithWhisper(
      loaded,
      { model: "tiny", source: TEST_MODEL_FOLDER, samples: repeatedSpeechSamples(5), task: "transcribe", language: "en", temperature: 0, wordTimestamps: false },
      settings,
      () => ++checks > cancelAfter,
    );
    await expect(outcome).rejects.toBeInstanceOf(CancelledError);
    // Asked once between windows and steps, once per step: it stopped as soon as it was told.
    expect(checks).toBe(cancelAfter + 1);
  });
});

describe.skipIf(!testModelAvailable)("log-mel features: transformers.js' feature extractor's numbers", () => {
  it("to 1e-4, for short, partial, nearly full and full windows", { timeout: timeoutFor(ONNX_SPIN * COST.speechModelLoad) }, async () => {
    transformersEnv.localModelPath = testModelsDir;
    transformersEnv.allowLocalModels = true;
    transformersEnv.allowRemoteModels = false;
    const { AutoProcessor } = await import("@huggingface/transformers");
    const processor: any = await AutoProcessor.from_pretrained(TEST_MODEL_FOLDER);
    const fixtures = [repeatedSpeechSamples(0.3), repeatedSpeechSamples(3.7), toneAndNoise(12), repeatedSpeechSamples(23.9), toneAndNoise(27), repeatedSpeechSamples(30)];
    for (const samples of fixtures) {
      const expected = (await processor(samples)).input_features as Tensor;
      const features = await logMelFeatures(processor, samples);
      expect(features.dims).toEqual(expected.dims);
      expect(maxDifference(features.data as Float32Array, expected.data as Float32Array)).toBeLessThan(1e-4);
    }
  });
});

describe.skipIf(!testModelAvailable)("the decoding rules on a logits row: transformers.js' logits processors' result", () => {
  it("bit for bit, over histories that exercise every rule", () => {
    const library = transformers as any;
    const config = JSON.parse(fs.readFileSync(path.join(testModelsDir, TEST_MODEL_FOLDER, "generation_config.json"), "utf8"));
    const eot: number = config.eos_token_id;
    const timestampBegin: number = config.no_timestamps_token_id + 1;
    const vocabulary = 51865;
    let seed = 5;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const text = () => Math.floor(random() * 50000);
    const timestamp = () => timestampBegin + Math.floor(random() * 1500);
    const histories: number[][] = [[], [timestamp()], [timestamp(), text()], [timestamp(), text(), timestamp()], [timestamp(), text(), timestamp(), timestamp()], [text(), text()]];
    const fired = { timestampsWin: 0, textOnly: 0, timestampOnly: 0 };
    const nearTies: number[] = [];
    for (let round = 0; round < 240; round++) {
      const useTimestamps = round % 4 !== 3;
      const initTokens = [config.decoder_start_token_id, 50259, config.task_to_id.transcribe, ...(useTimestamps ? [] : [config.no_timestamps_token_id])];
      const generated = histories[round % histories.length]!;
      const minNewTokens = round % 5 === 0 ? 4 : 0;
      // Text logits around 0; the timestamps' level varies so that either side wins.
      const shift = random() * 13 - 12;
      const row = Float32Array.from({ length: vocabulary }, (_, i) => (i >= timestampBegin ? shift : 0) + 2 * random() - 1);
      // Every sixth row a near tie: the timestamps' log-sum-exp within 5e-5 of the largest text logit,
      // where only the float32 roundings decide.
      if (round % 6 === 5) nearTies.push(makeNearTie(row, timestampBegin, (random() - 0.5) * 1e-4));
      const theirs = row.slice();
      const processors = [
        ...(minNewTokens ? [new library.MinNewTokensLengthLogitsProcessor(initTokens.length, minNewTokens, eot)] : []),
        new library.SuppressTokensLogitsProcessor(config.suppress_tokens),
        ...(useTimestamps ? [new library.WhisperTimeStampLogitsProcessor(config, initTokens)] : []),
        new library.SuppressTokensAtBeginLogitsProcessor(config.begin_suppress_tokens, initTokens.length),
      ];
      const ids = [[...initTokens, ...generated].map(BigInt)];
      let logits = new Tensor("float32", theirs, [1, vocabulary]);
      for (const processor of processors) logits = processor._call(ids, logits);
      const ours = row.slice();
      applyLogitRules(logitRulesFor(config, initTokens, { eot, useTimestamps, minNewTokens }), ours, initTokens, generated);
      expect(ours.findIndex((value, i) => !Object.is(value, theirs[i])), `round ${round}`).toBe(-1);
      const textLeft = ours.subarray(0, timestampBegin).some((value) => value > -Infinity);
      const timestampsLeft = ours.subarray(timestampBegin).some((value) => value > -Infinity);
      if (useTimestamps && generated.length > 0 && !textLeft && timestampsLeft && ours[eot] === -Infinity) fired.timestampsWin++;
      if (!timestampsLeft) fired.textOnly++;
      if (textLeft && ours[eot]! > -Infinity && ours.subarray(0, eot).every((value) => value === -Infinity)) fired.timestampOnly++;
    }
    // Each rule changed some rows: the comparison was not of untouched rows.
    expect(fired.timestampsWin).toBeGreaterThan(0);
    expect(fired.textOnly).toBeGreaterThan(0);
    expect(fired.timestampOnly).toBeGreaterThan(0);
    // The near ties were near: within the margin where the rules compute in float32, as transformers.js does.
    expect(nearTies.length).toBe(40);
    expect(nearTies.every((gap) => Math.abs(gap) < 1e-4)).toBe(true);
  });
});

/** Shifts the timestamp logits so that their log-sum-exp is `gap` above the largest text logit; returns the gap the float32 row holds. */
function makeNearTie(row: Float32Array, timestampBegin: number, gap: number): number {
  const logSumExp = (values: Float32Array) => {
    const max = Math.max(...values);
    return max + Math.log(values.reduce((sum, value) => sum + Math.exp(value - max), 0));
  };
  const maxText = Math.max(...row.subarray(0, timestampBegin));
  const shift = maxText + gap - logSumExp(row.subarray(timestampBegin));
  for (let i = timestampBegin; i < row.length; i++) row[i] = row[i]! + shift;
  return logSumExp(row.subarray(timestampBegin)) - maxText;
}
