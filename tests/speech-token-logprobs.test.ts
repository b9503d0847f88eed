/**
 * Token log-probabilities as OpenAI's `logprobs` entries (server/speech/whisper/token-logprobs.ts), on
 * Whisper's real tokenizer: a token's bytes are exactly its share of the text's UTF-8, whatever the text
 * (generated, emoji and scripts split inside characters included), and its text is those bytes decoded.
 */
import { AutoTokenizer, env as transformersEnv } from "@huggingface/transformers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { engineSettings } from "../server/speech/service";
import { loadWhisper, transcribeWithWhisper } from "../server/speech/whisper-engine";
import { tokenLogprobs } from "../server/speech/whisper/token-logprobs";
import { COST, ONNX_SPIN, timeoutFor } from "./support/busy-machine";
import { repeatedSpeechSamples } from "./support/speech-audio";
import { TEST_MODEL_FOLDER, testModelAvailable, testModelsDir, testSpeechConfig } from "./support/speech-server";

describe.skipIf(!testModelAvailable)("token log-probabilities", () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- transformers.js' tokenizer is loosely typed
  let tokenizer: any;
  beforeAll(async () => {
    transformersEnv.localModelPath = testModelsDir;
    transformersEnv.allowLocalModels = true;
    transformersEnv.allowRemoteModels = false;
    tokenizer = await AutoTokenizer.from_pretrained(TEST_MODEL_FOLDER);
  });

  it("gives each token its bytes of the text's UTF-8, in order, and its text decoded from them", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), fc.float({ min: -20, max: 0, noNaN: true }), (text, logprob) => {
        const ids: number[] = tokenizer.encode(text, { add_special_tokens: false });
        const entries = tokenLogprobs(tokenizer, ids.map((id) => ({ id, logprob })));
        expect(entries).toHaveLength(ids.length);
        expect(Buffer.from(entries.flatMap((entry) => entry.bytes))).toEqual(Buffer.from(text, "utf8"));
        for (const entry of entries) {
          expect(entry.logprob).toBe(logprob);
          expect(entry.token).toBe(new TextDecoder().decode(Uint8Array.from(entry.bytes)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("spells a space and a character split across tokens as OpenAI's entries do", () => {
    const ids: number[] = tokenizer.encode(" 🙂", { add_special_tokens: false });
    const entries = tokenLogprobs(tokenizer, ids.map((id) => ({ id, logprob: -0.5 })));
    expect(entries.flatMap((entry) => entry.bytes)).toEqual([0x20, 0xf0, 0x9f, 0x99, 0x82]);
    // The emoji's four bytes span more than one token: a part alone decodes to U+FFFD.
    expect(entries.length).toBeGreaterThan(1);
    expect(entries.map((entry) => entry.token).join("")).toContain("\uFFFD");
  });

  it("a transcription asked for them gives its text tokens, whose bytes spell its segments' text", { timeout: timeoutFor(ONNX_SPIN * 2 * COST.speechModelLoad) }, async () => {
    // The service's settings, with a minimum that makes the random model decode text rather than nothing.
    const settings = { ...engineSettings(testSpeechConfig()), maxNewTokens: 32, minNewTokens: 24, fallbackTemperatures: [] };
    const loaded = await loadWhisper(TEST_MODEL_FOLDER, settings);
    const request = { model: "tiny" as const, source: TEST_MODEL_FOLDER, samples: repeatedSpeechSamples(5), task: "transcribe" as const, language: "en", temperature: 0, wordTimestamps: false };
    const asked = await transcribeWithWhisper(loaded, { ...request, logprobs: true }, settings, () => false);
    const logprobs = asked.logprobs!;
    expect(logprobs.length).toBeGreaterThan(0);
    for (const entry of logprobs) expect(entry.logprob).toBeLessThanOrEqual(0);
    const spelt = new TextDecoder().decode(Uint8Array.from(logprobs.flatMap((entry) => entry.bytes)));
    expect(spelt).toBe(asked.segments.map((segment) => segment.text).join(""));
    // Not asked: the same transcript, without them.
    const unasked = await transcribeWithWhisper(loaded, { ...request, samples: repeatedSpeechSamples(5) }, settings, () => false);
    expect(unasked.text).toBe(asked.text);
    expect(unasked).not.toHaveProperty("logprobs");
  });
});
