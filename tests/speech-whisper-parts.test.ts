/**
 * The parts of Whisper decoding that need no model (server/speech/whisper/): the fallback's decisions,
 * the decoder prompt, language detection from logits, the token picker, and segment and word assembly.
 * The decoding itself, with a model, is tested through the API (speech-api.test.ts).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compressionRatio, decodeWithFallback, judgeDecode, temperaturesToTry } from "../server/speech/whisper/fallback";
import { mostLikelyLanguage, noSpeechProbability } from "../server/speech/whisper/first-step";
import type { LoadedWhisper } from "../server/speech/whisper/model";
import { decoderPrompt, maxNewTokens, previousTextAfter } from "../server/speech/whisper/prompt";
import { windowSegments } from "../server/speech/whisper/segments";
import { pickToken, sumExpBelow } from "../server/speech/whisper/token-picker";

const thresholds = { logprobThreshold: -1, noSpeechThreshold: 0.6, compressionRatioThreshold: 2.4 };

describe("temperature fallback", () => {
  it("tries 0 then the fallback temperatures, or only a temperature the caller chose", () => {
    expect(temperaturesToTry(0, [0.2, 0.4])).toEqual([0, 0.2, 0.4]);
    expect(temperaturesToTry(0, [])).toEqual([0]);
    expect(temperaturesToTry(0.7, [0.2, 0.4])).toEqual([0.7]);
  });

  it("judges a decode: silence only when unsure and <|nospeech|> is likely; a loop or an unsure decode is retried", () => {
    const sure = { avgLogprob: -0.3, compressionRatio: 1.5 };
    const unsure = { avgLogprob: -1.5, compressionRatio: 1.5 };
    const looping = { avgLogprob: -0.3, compressionRatio: 3 };
    expect(judgeDecode(sure, 0.1, thresholds)).toBe("accept");
    expect(judgeDecode(sure, 0.9, thresholds)).toBe("accept");
    expect(judgeDecode(unsure, 0.9, thresholds)).toBe("silence");
    expect(judgeDecode(unsure, 0.1, thresholds)).toBe("retry");
    expect(judgeDecode(looping, 0.1, thresholds)).toBe("retry");
    expect(judgeDecode(looping, 0.9, thresholds)).toBe("retry");
    // The thresholds themselves pass.
    expect(judgeDecode({ avgLogprob: -1, compressionRatio: 2.4 }, 0.6, thresholds)).toBe("accept");
  });

  it("measures repetition by compression ratio: a loop passes the threshold, a sentence does not", () => {
    expect(compressionRatio("")).toBe(0);
    expect(compressionRatio("The area of the enlarged triangle is one hundred and fifty square centimetres.")).toBeLessThan(2.4);
    expect(compressionRatio(" the the the the the the the the the the the the the the the the the the")).toBeGreaterThan(2.4);
  });

  const decodes = (byTemperature: Record<number, { avgLogprob: number; compressionRatio: number }>) => {
    const tried: number[] = [];
    const decodeAt = async (temperature: number) => {
      tried.push(temperature);
      return { temperature, ...byTemperature[temperature]! };
    };
    return { tried, decodeAt };
  };

  it("stops at the first decode accepted", async () => {
    const { tried, decodeAt } = decodes({ 0: { avgLogprob: -2, compressionRatio: 1 }, 0.2: { avgLogprob: -0.5, compressionRatio: 1 }, 0.4: { avgLogprob: -0.1, compressionRatio: 1 } });
    const decoded = await decodeWithFallback([0, 0.2, 0.4], decodeAt, 0.1, thresholds);
    expect(decoded?.temperature).toBe(0.2);
    expect(tried).toEqual([0, 0.2]);
  });

  it("keeps the last decode when none is accepted", async () => {
    const { tried, decodeAt } = decodes({ 0: { avgLogprob: -0.1, compressionRatio: 5 }, 0.2: { avgLogprob: -3, compressionRatio: 1 } });
    const decoded = await decodeWithFallback([0, 0.2], decodeAt, 0.1, thresholds);
    expect(decoded?.temperature).toBe(0.2);
    expect(tried).toEqual([0, 0.2]);
  });

  it("gives no decode for silence, even after a retry", async () => {
    const { tried, decodeAt } = decodes({ 0: { avgLogprob: -0.1, compressionRatio: 5 }, 0.2: { avgLogprob: -3, compressionRatio: 1 }, 0.4: { avgLogprob: -0.1, compressionRatio: 1 } });
    expect(await decodeWithFallback([0, 0.2, 0.4], decodeAt, 0.9, thresholds)).toBeNull();
    expect(tried).toEqual([0, 0.2]);
  });
});

const tokens: LoadedWhisper["tokens"] = {
  sot: 900,
  eot: 901,
  startOfPrev: 902,
  noSpeech: 903,
  noTimestamps: 904,
  timestampBegin: 1000,
  transcribe: 905,
  translate: 906,
  languages: new Map([
    [910, "en"],
    [911, "fr"],
  ]),
  languageIds: new Map([
    ["en", 910],
    ["fr", 911],
  ]),
};

describe("decoder prompt", () => {
  const base = { tokens, multilingual: true, promptTokens: [], previousText: [], languageCode: "fr", task: "transcribe" as const, useTimestamps: true };

  it("starts a multilingual transcript with the language and task, and a monolingual one with <|startoftranscript|> alone", () => {
    expect(decoderPrompt(base)).toEqual([900, 911, 905]);
    expect(decoderPrompt({ ...base, task: "translate" })).toEqual([900, 911, 906]);
    expect(decoderPrompt({ ...base, multilingual: false })).toEqual([900]);
    expect(decoderPrompt({ ...base, useTimestamps: false })).toEqual([900, 911, 905, 904]);
  });

  it("puts the caller's prompt and the previous text after <|startofprev|>, keeping the last 223 tokens", () => {
    expect(decoderPrompt({ ...base, promptTokens: [1, 2], previousText: [3] })).toEqual([902, 1, 2, 3, 900, 911, 905]);
    const long = Array.from({ length: 300 }, (_, i) => i);
    const prompt = decoderPrompt({ ...base, promptTokens: long.slice(0, 100), previousText: long.slice(100) });
    expect(prompt.slice(0, 2)).toEqual([902, 77]);
    expect(prompt.length).toBe(1 + 223 + 3);
  });

  it("limits new tokens to the decoder's 448 positions, one kept for <|endoftext|>", () => {
    expect(maxNewTokens(4, 96)).toBe(96);
    expect(maxNewTokens(227, 448)).toBe(220);
    expect(maxNewTokens(447, 96)).toBe(1);
  });

  it("conditions the next window on this one's text unless it was sampled above 0.5", () => {
    expect(previousTextAfter([1], { tokens: [2, 1003, 3], temperature: 0 }, 901)).toEqual([1, 2, 3]);
    expect(previousTextAfter([1], { tokens: [2], temperature: 0.5 }, 901)).toEqual([1, 2]);
    expect(previousTextAfter([1], { tokens: [2], temperature: 0.6 }, 901)).toEqual([]);
  });
});

describe("first step", () => {
  it("detects the language among the language tokens only, and none when the model knows none", () => {
    const logits = new Float32Array(1001).fill(-5);
    logits[910] = 1;
    logits[911] = 2;
    logits[5] = 10;
    expect(mostLikelyLanguage(logits, tokens.languages)).toBe("fr");
    expect(mostLikelyLanguage(logits, new Map())).toBeUndefined();
  });

  it("reads the no-speech probability as a softmax over the vocabulary", () => {
    const logits = new Float32Array([0, Math.log(3), 0, 0]);
    expect(noSpeechProbability(logits, 1)).toBeCloseTo(0.5, 6);
  });
});

describe("token picker", () => {
  it("at temperature 0 takes the (first) argmax and its log-probability", () => {
    const picked = pickToken(new Float32Array([0, Math.log(3), 0, Math.log(3)]), 0);
    expect(picked.token).toBe(1);
    expect(picked.logprob).toBeCloseTo(Math.log(3 / 8), 6);
  });

  it("samples in proportion to the probabilities, never a token that is impossible", () => {
    const row = new Float32Array([-Infinity, 0, -Infinity, Math.log(3)]);
    const picks = [0.1, 0.2, 0.3, 0.5, 0.9].map((draw) => pickToken(row, 1, () => draw).token);
    expect(picks).toEqual([1, 1, 3, 3, 3]);
    expect(pickToken(row, 1, () => 0.1).logprob).toBeCloseTo(Math.log(1 / 4), 6);
  });

  it("sums the exponentials of a row within 1e-10 of Math.exp's sum, masked tokens and far tails included", () => {
    const logit = fc.oneof(
      { weight: 8, arbitrary: fc.float({ min: -60, max: 30, noNaN: true }) },
      { weight: 1, arbitrary: fc.constant(-Infinity) },
    );
    fc.assert(
      fc.property(fc.array(logit, { minLength: 1, maxLength: 400 }), fc.nat(), fc.nat(), (values, a, b) => {
        const row = Float32Array.from(values);
        const from = a % row.length;
        const to = from + (b % (row.length - from + 1));
        let max = -Infinity;
        for (let i = from; i < to; i++) max = Math.max(max, row[i]!);
        let expected = 0;
        for (let i = from; i < to; i++) expected += Math.exp(row[i]! - max);
        const sum = sumExpBelow(row, max, from, to);
        // An empty or fully masked range sums to 0; otherwise the largest term is 1, terms below
        // exp(-40) are dropped and the rest are within 1e-11 each.
        if (max === -Infinity) expect(sum).toBe(0);
        else expect(Math.abs(sum - expected)).toBeLessThanOrEqual(1e-10 * expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe("segments of a window", () => {
  const vocabulary: Record<number, string> = { 1: " Hello", 2: " world", 3: " again", 4: " ", 5: " Pytha", 6: "goras", 7: " said" };
  const decodeText = (ids: number[]) => ids.map((id) => vocabulary[id] ?? "").join("");
  const place = { offsetSeconds: 30, windowSeconds: 30, noSpeechProb: 0.05, firstId: 0, timestampBegin: 1000, useTimestamps: true };
  const decode = (ids: number[], more: { tokenTimes?: number[]; logprobs?: number[] } = {}) => ({
    tokens: ids,
    logprobs: more.logprobs ?? ids.map(() => -0.1),
    tokenTimes: more.tokenTimes ?? null,
    temperature: 0.2,
    avgLogprob: -0.25,
    compressionRatio: 1.2,
  });

  it("splits at pairs of timestamp tokens, in the transcript's time, with the decode's statistics", () => {
    const segments = windowSegments(decode([1000, 1, 2, 1050, 1050, 3, 1100]), place, decodeText);
    expect(segments).toEqual([
      { id: 0, seek: 30, start: 30, end: 31, text: " Hello world", tokens: [1000, 1, 2, 1050], temperature: 0.2, avg_logprob: -0.25, compression_ratio: 1.2, no_speech_prob: 0.05 },
      { id: 1, seek: 30, start: 31, end: 32, text: " again", tokens: [1050, 3, 1100], temperature: 0.2, avg_logprob: -0.25, compression_ratio: 1.2, no_speech_prob: 0.05 },
    ]);
  });

  it("numbers on from the transcript's segments so far, and leaves out blank segments", () => {
    const segments = windowSegments(decode([1000, 4, 1050, 1050, 3, 1100]), { ...place, firstId: 5 }, decodeText);
    expect(segments.map(({ id, text, start }) => ({ id, text, start }))).toEqual([{ id: 5, text: " again", start: 31 }]);
  });

  it("without timestamps, gives the whole window as one segment", () => {
    const segments = windowSegments(decode([1, 2]), { ...place, useTimestamps: false, windowSeconds: 12.5 }, decodeText);
    expect(segments.map(({ start, end, text }) => ({ start, end, text }))).toEqual([{ start: 30, end: 42.5, text: " Hello world" }]);
  });

  it("joins tokens into words at leading spaces, each ending where the next token starts", () => {
    const logprobs = [0, Math.log(0.9), Math.log(0.5), Math.log(0.8), 0];
    const [segment] = windowSegments(decode([1000, 5, 6, 7, 1050], { tokenTimes: [0, 0.1, 0.3, 0.6, 1], logprobs }), place, decodeText);
    expect(segment!.words).toHaveLength(2);
    const [pythagoras, said] = segment!.words!;
    expect(pythagoras).toMatchObject({ word: "Pythagoras", start: expect.closeTo(30.1, 6), end: expect.closeTo(30.6, 6) });
    expect(pythagoras!.probability).toBeCloseTo(0.7, 6);
    expect(said).toMatchObject({ word: "said", start: expect.closeTo(30.6, 6), end: 31 });
    expect(said!.probability).toBeCloseTo(0.8, 6);
  });
});
