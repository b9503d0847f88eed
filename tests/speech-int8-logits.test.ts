/**
 * The decoder's logits projected in 8 bits (server/speech/onnx-int8-logits.ts, whisper/logits-row.ts)
 * must pick what the float projection picks. Two ways:
 * - the bound itself, on generated embeddings, hidden states and masks (fast-check), against an 8-bit
 *   product computed the way DynamicQuantizeMatMul computes it: after settle(), the largest value of the
 *   row and of its text part are the exact ones, whatever the quantization did;
 * - the rewritten tiny decoder run by onnxruntime against the exported one, step by step: every
 *   approximate logit within its bound, the timestamp logits bit for bit, the same token after settle().
 * The whole engine is held to transformers.js' tokens by tests/speech-equivalence.test.ts.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { shareTiedEmbeddingProjection } from "../server/speech/onnx-graph";
import { INT8_LOGITS_OUTPUTS, type StoredEmbedding, int8LogitsDecoder } from "../server/speech/onnx-int8-logits";
import { Int8Projection, int8Row } from "../server/speech/whisper/logits-row";
import { pickToken } from "../server/speech/whisper/token-picker";
import { COST, ONNX_SPIN, timeoutFor } from "./support/busy-machine";
import { TEST_MODEL_FOLDER, testModelAvailable, testModelsDir } from "./support/speech-server";

const ort = createRequire(import.meta.url)("onnxruntime-node");

/** The index of the largest value (the first of equal ones), -1 when all are -Infinity. */
function argmax(values: Float32Array, from = 0, to = values.length): number {
  let best = -1;
  for (let i = from; i < to; i++) if (values[i]! > -Infinity && (best < 0 || values[i]! > values[best]!)) best = i;
  return best;
}

/**
 * The 8-bit product as DynamicQuantizeMatMul computes it: the whole hidden tensor quantized to uint8 over
 * [min(0, min), max(0, max)] (round half to even, saturated), multiplied in integers, scaled back.
 */
function quantizedProduct(embedding: StoredEmbedding, hidden: Float32Array): Float32Array {
  let min = 0;
  let max = 0;
  for (const value of hidden) [min, max] = [Math.min(min, value), Math.max(max, value)];
  const scale = (max - min) / 255 || 1;
  const zeroPoint = Math.min(255, Math.max(0, Math.round(-min / scale)));
  const roundEven = (x: number) => (Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : Math.round(x));
  const last = hidden.subarray(hidden.length - embedding.width);
  const q = Array.from(last, (value) => Math.min(255, Math.max(0, roundEven(value / scale) + zeroPoint)) - zeroPoint);
  return Float32Array.from({ length: embedding.rows }, (_, row) => {
    let sum = 0;
    for (let i = 0; i < embedding.width; i++) sum += q[i]! * (embedding.values[row * embedding.width + i]! - embedding.zeroPoint);
    return Math.fround(sum * Math.fround(scale * embedding.scale));
  });
}

const embeddingArbitrary = fc
  .record({ rows: fc.integer({ min: 8, max: 120 }), width: fc.integer({ min: 2, max: 48 }), signed: fc.boolean(), scale: fc.double({ min: 1e-4, max: 0.5, noNaN: true }) })
  .chain(({ rows, width, signed, scale }) =>
    fc.record({
      embedding: fc.record({
        values: fc.uint8Array({ minLength: rows * width, maxLength: rows * width }).map((bytes) => (signed ? new Int8Array(bytes.buffer) : bytes)),
        rows: fc.constant(rows),
        width: fc.constant(width),
        scale: fc.constant(Math.fround(scale)),
        zeroPoint: signed ? fc.integer({ min: -8, max: 8 }) : fc.integer({ min: 120, max: 136 }),
      }),
      // The rows of the prompt before the last: they widen the quantization range.
      hidden: fc.array(fc.float({ min: -20, max: 20, noNaN: true, noDefaultInfinity: true }), { minLength: width, maxLength: width * 3 }).map((values) => {
        const whole = Math.ceil(values.length / width) * width;
        return Float32Array.from({ length: whole }, (_, i) => values[i % values.length]!);
      }),
      firstTimestamp: fc.integer({ min: 1, max: rows - 1 }),
      masked: fc.uniqueArray(fc.integer({ min: 0, max: rows - 1 }), { maxLength: rows - 1 }),
    }),
  );

describe("the 8-bit logits' bound", () => {
  it("after settle(), the largest logit of the row and of its text tokens are the exact ones", () => {
    fc.assert(
      fc.property(embeddingArbitrary, ({ embedding, hidden, firstTimestamp, masked }) => {
        const projection = new Int8Projection(embedding, firstTimestamp);
        const last = hidden.subarray(hidden.length - embedding.width);
        const exact = Float32Array.from({ length: embedding.rows }, (_, token) => projection.exactLogit(last, token));
        const approximate = quantizedProduct(embedding, hidden);
        // Every approximate logit is within its bound of the exact one.
        for (let token = 0; token < embedding.rows; token++) expect(Math.abs(approximate[token]! - exact[token]!)).toBeLessThanOrEqual(projection.bound(token, stepOf(hidden), approximate[token]!));
        const row = int8Row(projection, approximate.slice(), exact.slice(firstTimestamp), hidden);
        for (const token of masked) [row.values[token], exact[token]] = [-Infinity, -Infinity];
        const largest = row.settle();
        // Every text token that its bound lets be the largest is exact now, and no other was needed.
        const step8 = stepOf(hidden);
        const open = Array.from({ length: firstTimestamp }, (_, token) => token).filter((token) => row.values[token] !== -Infinity);
        const bestLower = Math.max(...open.map((token) => approximate[token]! - projection.bound(token, step8, approximate[token]!)));
        for (const token of open) {
          if (approximate[token]! + projection.bound(token, step8, approximate[token]!) >= bestLower) expect(row.values[token]).toBe(exact[token]);
        }
        expect(argmax(row.values)).toBe(argmax(exact));
        const text = argmax(row.values, 0, firstTimestamp);
        expect(text).toBe(argmax(exact, 0, firstTimestamp));
        if (text >= 0) expect(row.values[text]).toBe(exact[text]);
        // settle() names the largest text token itself (-1 when all are masked), and still after a mask.
        expect(largest).toBe(text);
        if (text >= 0) {
          [row.values[text], exact[text]] = [-Infinity, -Infinity];
          expect(row.settle()).toBe(argmax(exact, 0, firstTimestamp));
        }
        // The token picker, told the largest text token, picks what it picks reading the whole row.
        const told = pickToken(row.values, 0, Math.random, { end: firstTimestamp, largest: row.settle() });
        expect(told).toEqual(pickToken(row.values, 0));
      }),
      { numRuns: 300 },
    );
  });

  it("makeExact() gives the exact logit of the tokens asked for, and leaves a masked token masked", () => {
    fc.assert(
      fc.property(embeddingArbitrary, ({ embedding, hidden, firstTimestamp }) => {
        const projection = new Int8Projection(embedding, firstTimestamp);
        const last = hidden.subarray(hidden.length - embedding.width);
        const row = int8Row(projection, quantizedProduct(embedding, hidden), new Float32Array(embedding.rows - firstTimestamp), hidden);
        row.values[0] = -Infinity;
        row.makeExact([0, firstTimestamp - 1]);
        expect(row.values[0]).toBe(-Infinity);
        if (firstTimestamp > 1) expect(row.values[firstTimestamp - 1]).toBe(projection.exactLogit(last, firstTimestamp - 1));
      }),
      { numRuns: 100 },
    );
  });
});

/** One quantization step of a hidden tensor, as the bound takes it. */
function stepOf(hidden: Float32Array) {
  let [min, max] = [0, 0];
  for (const value of hidden) [min, max] = [Math.min(min, value), Math.max(max, value)];
  return (max - min) / 255;
}

describe.skipIf(!testModelAvailable)("the rewritten tiny decoder against the exported one", () => {
  const decoderFile = path.join(testModelsDir, TEST_MODEL_FOLDER, "onnx", "decoder_model_merged_quantized.onnx");
  const config = JSON.parse(fs.readFileSync(path.join(testModelsDir, TEST_MODEL_FOLDER, "generation_config.json"), "utf8"));
  const firstTimestamp: number = config.no_timestamps_token_id + 1;
  const options = { intraOpNumThreads: 2, extra: { session: { disable_quant_qdq: "1" } } };

  it("leaves alone what it does not recognise: the encoder, a truncated file, not ONNX, a timestamp outside the vocabulary", () => {
    const decoder = fs.readFileSync(decoderFile);
    expect(int8LogitsDecoder(fs.readFileSync(decoderFile.replace("decoder_model_merged", "encoder_model")), firstTimestamp)).toBeNull();
    expect(int8LogitsDecoder(decoder.subarray(0, decoder.length / 2), firstTimestamp)).toBeNull();
    expect(int8LogitsDecoder(new TextEncoder().encode("not an onnx file"), firstTimestamp)).toBeNull();
    expect(int8LogitsDecoder(decoder, 60000)).toBeNull();
    const rewritten = int8LogitsDecoder(decoder, firstTimestamp)!;
    expect(int8LogitsDecoder(rewritten.model, firstTimestamp)).toBeNull(); // nothing left to rewrite
    // The file keeps the embedding in 8 bits, and no float copy of it is made.
    expect(rewritten.embedding.values.length).toBe(51865 * 384);
  });

  it("every step: approximate logits within their bound, timestamp logits bit for bit, the same token after settle()", { timeout: timeoutFor(ONNX_SPIN * COST.onnxDecoderComparison * 2) }, async () => {
    const original = fs.readFileSync(decoderFile);
    const rewritten = int8LogitsDecoder(original, firstTimestamp)!;
    const projection = new Int8Projection(rewritten.embedding, firstTimestamp);
    const float = await ort.InferenceSession.create(shareTiedEmbeddingProjection(original), options);
    const int8 = await ort.InferenceSession.create(rewritten.model, options);
    expect(int8.outputNames).toEqual(expect.arrayContaining(Object.values(INT8_LOGITS_OUTPUTS)));
    expect(int8.outputNames).not.toContain("logits");
    const pastNames: string[] = float.inputNames.filter((name: string) => name.startsWith("past_key_values"));
    let seed = 3;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let stepsChecked = 0;
    let candidates = 0;
    for (const level of [0.5, 2]) {
      const encoderStates = new ort.Tensor("float32", Float32Array.from({ length: 1500 * 384 }, () => level * (random() - 0.5)), [1, 1500, 384]);
      let feeds: Record<string, unknown> = {
        input_ids: new ort.Tensor("int64", BigInt64Array.from([50258n, 50259n, 50359n]), [1, 3]),
        encoder_hidden_states: encoderStates,
        use_cache_branch: new ort.Tensor("bool", [false], [1]),
      };
      for (const name of pastNames) feeds[name] = new ort.Tensor("float32", new Float32Array(0), [1, 6, 0, 64]);
      const crossOrSelf: Record<string, unknown> = {};
      for (let step = 0; step < 12; step++) {
        const [a, b] = [await float.run(feeds), await int8.run(feeds)];
        const exact = (a.logits.data as Float32Array).subarray(a.logits.data.length - 51865);
        const approximate = (b[INT8_LOGITS_OUTPUTS.approximate].data as Float32Array).slice(-51865);
        const hidden = b[INT8_LOGITS_OUTPUTS.hidden].data as Float32Array;
        const step8 = stepOf(hidden);
        for (let token = 0; token < firstTimestamp; token++) {
          const error = Math.abs(approximate[token]! - exact[token]!);
          if (error > projection.bound(token, step8, approximate[token]!)) expect.fail(`token ${token}: error ${error} beyond its bound`);
        }
        const timestamps = (b[INT8_LOGITS_OUTPUTS.timestamps].data as Float32Array).slice(-(51865 - firstTimestamp));
        expect(timestamps).toEqual(exact.slice(firstTimestamp));
        const row = int8Row(projection, approximate, timestamps, hidden);
        const before = row.values.slice();
        row.settle();
        candidates += row.values.reduce((count, value, i) => count + (value !== before[i] ? 1 : 0), 0);
        const token = argmax(row.values);
        expect(token).toBe(argmax(exact));
        expect(Math.abs(row.values[token]! - exact[token]!)).toBeLessThan(1e-5);
        stepsChecked++;
        feeds = { input_ids: new ort.Tensor("int64", BigInt64Array.from([BigInt(token)]), [1, 1]), encoder_hidden_states: encoderStates, use_cache_branch: new ort.Tensor("bool", [true], [1]) };
        // Self-attention caches from this step; the cross-attention keys and values from the first (the engine's way).
        for (const name of pastNames) if (step === 0 || name.includes(".decoder.")) crossOrSelf[name] = a[name.replace("past_key_values", "present")];
        Object.assign(feeds, crossOrSelf);
      }
    }
    expect(stepsChecked).toBe(24);
    // A handful of tokens per step computed exactly, not the vocabulary.
    expect(candidates / stepsChecked).toBeLessThan(50);
    await Promise.all([float.release(), int8.release()]);
  });
});
