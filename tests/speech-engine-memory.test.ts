/**
 * What the speech engine does to keep its memory down (docs/benchmarks.md, bench:speech) must not change
 * what it computes: the rewritten Whisper graphs (server/speech/onnx-graph.ts) against the files as
 * exported, run by onnxruntime, and the short-audio log-mel features against transformers.js' own.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { AutoProcessor, env as transformersEnv } from "@huggingface/transformers";
import { beforeAll, describe, expect, it } from "vitest";
import { fuseEncoderAttention, shareTiedEmbeddingProjection } from "../server/speech/onnx-graph";
import { logMelFeatures } from "../server/speech/whisper-engine";
import { COST, ONNX_SPIN, timeoutFor } from "./support/busy-machine";
import { TEST_MODEL_FOLDER, testModelAvailable, testModelsDir } from "./support/speech-server";

/* eslint-disable @typescript-eslint/no-explicit-any -- onnxruntime's tensors, used loosely here */
const ort = createRequire(import.meta.url)("onnxruntime-node");
const onnxFile = (name: string) => path.join(testModelsDir, TEST_MODEL_FOLDER, "onnx", `${name}_quantized.onnx`);
/** The engine's options that matter here: the q8 dequantization folded at load. */
const options = { intraOpNumThreads: 2, extra: { session: { disable_quant_qdq: "1", disable_prepacking: "1" } } };

function maxDifference(a: Float32Array, b: Float32Array) {
  expect(a.length).toBe(b.length);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i]! - b[i]!));
  return max;
}

/** The model with intermediate values added as graph outputs (ModelProto.graph = 7, GraphProto.output = 12). */
function withOutputs(model: Uint8Array, names: string[]): Uint8Array {
  const varint = (value: number) => {
    const out: number[] = [];
    for (; value >= 0x80; value = Math.floor(value / 128)) out.push((value % 128) | 0x80);
    return [...out, value];
  };
  const readVarint = (at: number): [number, number] => {
    let value = 0;
    for (let scale = 1; ; scale *= 128) {
      const byte = model[at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return [value, at];
    }
  };
  const field = (no: number, bytes: Uint8Array | number[]) => [...varint(no * 8 + 2), ...varint(bytes.length), ...bytes];
  for (let at = 0; at < model.length; ) {
    const start = at;
    const [key, afterKey] = readVarint(at);
    const [length, afterLength] = key % 8 === 2 ? readVarint(afterKey) : [0, afterKey];
    at = key % 8 === 2 ? afterLength + length : key % 8 === 0 ? readVarint(afterKey)[1] : afterKey + (key % 8 === 5 ? 4 : 8);
    if (key >> 3 !== 7) continue;
    const outputs = names.flatMap((name) => field(12, field(1, new TextEncoder().encode(name))));
    const graph = Uint8Array.from([...model.subarray(afterLength, at), ...outputs]);
    return Uint8Array.from([...model.subarray(0, start), ...field(7, graph), ...model.subarray(at)]);
  }
  throw new Error("no graph in the model");
}

/** Deterministic noise with a tone in it, so that the features have structure. */
function audio(seconds: number) {
  let seed = 7;
  return Float32Array.from({ length: Math.round(seconds * 16000) }, (_, i) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return 0.3 * Math.sin(i / 9) + 0.05 * (seed / 2 ** 31 - 0.5);
  });
}

describe.skipIf(!testModelAvailable)("speech engine memory: the rewritten graphs compute what the exported ones do", () => {
  const decoderBytes = () => fs.readFileSync(onnxFile("decoder_model_merged"));
  const encoderBytes = () => fs.readFileSync(onnxFile("encoder_model"));
  const encoderStates = new ort.Tensor("float32", audio(1500 * 384 / 16000), [1, 1500, 384]);

  it("the decoder's two branches share one tied-embedding projection and give the same logits", { timeout: timeoutFor(ONNX_SPIN * COST.onnxDecoderComparison) }, async () => {
    const rewritten = shareTiedEmbeddingProjection(decoderBytes());
    expect(rewritten).not.toBeNull();
    // Nothing is left to share: each branch now reads the projection computed once, outside both.
    expect(shareTiedEmbeddingProjection(rewritten!)).toBeNull();

    const original = await ort.InferenceSession.create(onnxFile("decoder_model_merged"), options);
    const shared = await ort.InferenceSession.create(rewritten, options);
    const pastNames: string[] = original.inputNames.filter((name: string) => name.startsWith("past_key_values"));
    // First step, without the cache (the `no_past` branch): <|startoftranscript|><|en|><|transcribe|>.
    const first: Record<string, unknown> = {
      input_ids: new ort.Tensor("int64", BigInt64Array.from([50258n, 50259n, 50359n]), [1, 3]),
      encoder_hidden_states: encoderStates,
      use_cache_branch: new ort.Tensor("bool", [false], [1]),
    };
    for (const name of pastNames) first[name] = new ort.Tensor("float32", new Float32Array(0), [1, 6, 0, 64]);
    const [a, b] = [await original.run(first), await shared.run(first)];
    expect(b.logits.dims).toEqual([1, 3, 51865]);
    expect(maxDifference(a.logits.data, b.logits.data)).toBe(0);

    // Next step, with the cache (the `with_past` branch).
    const next: Record<string, unknown> = {
      input_ids: new ort.Tensor("int64", BigInt64Array.from([1000n]), [1, 1]),
      encoder_hidden_states: encoderStates,
      use_cache_branch: new ort.Tensor("bool", [true], [1]),
    };
    for (const name of pastNames) next[name] = a[name.replace("past_key_values", "present")];
    const [c, d] = [await original.run(next), await shared.run(next)];
    expect(maxDifference(c.logits.data, d.logits.data)).toBe(0);
    await Promise.all([original.release(), shared.release()]);
  });

  it("the encoder's attention runs as fused MultiHeadAttention and gives the same attention output", { timeout: timeoutFor(ONNX_SPIN * COST.onnxEncoderComparison) }, async () => {
    const fused = fuseEncoderAttention(encoderBytes());
    expect(fused).not.toBeNull();
    expect(Buffer.from(fused!).includes("MultiHeadAttention")).toBe(true);
    expect(fuseEncoderAttention(fused!)).toBeNull(); // every attention was fused

    // The fused node's output keeps the name of the attention's last Transpose ([1, 1500, 6, 64] there,
    // [1, 1500, 384] here: the same numbers in the same order). The first layer's is compared exactly, as
    // a graph output: later layers see inputs already blurred by the q8 rounding of the layers before.
    const attentionOutputs = ["/layers.0/Transpose_3_output_0"];
    const original = await ort.InferenceSession.create(withOutputs(encoderBytes(), attentionOutputs), options);
    const rewritten = await ort.InferenceSession.create(withOutputs(fused!, attentionOutputs), options);
    const features = new ort.Tensor("float32", audio((80 * 3000) / 16000).map((x) => x * 3), [1, 80, 3000]);
    const [a, b] = [await original.run({ input_features: features }), await rewritten.run({ input_features: features })];
    for (const name of attentionOutputs) {
      expect(b[name].dims).toEqual([1, 1500, 384]);
      expect(maxDifference(a[name].data, b[name].data)).toBeLessThan(1e-5); // a wrong scale: 0.04
    }
    // The encoder's output: the same within q8 rounding (measured: mean 0.003, max 0.03, as much as
    // between onnxruntime's own optimization levels on the original file).
    expect(maxDifference(a.last_hidden_state.data, b.last_hidden_state.data)).toBeLessThan(0.1);
    await Promise.all([original.release(), rewritten.release()]);
  });

  it("leaves alone what it does not recognise: the other model, a truncated file, not ONNX at all", () => {
    const encoder = encoderBytes();
    expect(shareTiedEmbeddingProjection(encoder)).toBeNull();
    expect(fuseEncoderAttention(decoderBytes())).toBeNull();
    expect(fuseEncoderAttention(encoder.subarray(0, encoder.length / 2))).toBeNull();
    expect(shareTiedEmbeddingProjection(new TextEncoder().encode("not an onnx file"))).toBeNull();
    expect(fuseEncoderAttention(new Uint8Array(0))).toBeNull();
  });
});

describe.skipIf(!testModelAvailable)("speech engine memory: log-mel features of short audio", () => {
  let processor: any;
  beforeAll(async () => {
    transformersEnv.localModelPath = testModelsDir;
    transformersEnv.allowRemoteModels = false;
    processor = await AutoProcessor.from_pretrained(TEST_MODEL_FOLDER);
  });

  it.each([0.2, 4.4, 12, 27, 30])("%s s: the same features as transformers.js computes over the padded 30 s", async (seconds) => {
    const samples = audio(seconds);
    const expected = (await processor(samples)).input_features;
    const features = await logMelFeatures(processor, samples);
    expect(features.dims).toEqual([1, 80, 3000]);
    expect(maxDifference(expected.data, features.data as Float32Array)).toBeLessThan(1e-6);
  });
});
