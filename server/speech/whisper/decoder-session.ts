/**
 * Whisper's merged decoder (one `If` on use_cache_branch) driven step by step on Markbook's own
 * onnxruntime session, without generate(). The first step of a window takes the else branch once: it
 * computes the cross-attention keys and values from the encoder output, and they are fed back as they
 * came out, never copied, to every later step of every decode of the window. Every decode then runs the
 * then branch, its prompt included (from an empty cache: the same numbers as the else branch, checked
 * bit for bit), and each step gets the self-attention keys and values onnxruntime returned from the
 * step before. Only the outputs a step needs are fetched.
 */
import { INT8_LOGITS_OUTPUTS } from "../onnx-int8-logits";
import { type Int8Projection, type LogitsRow, exactRow, int8Row } from "./logits-row";
import type { AnyModel } from "./model";
import { onnxRuntime } from "./model";

type OrtTensor = AnyModel;
type OrtSession = AnyModel;

/** What every decode of a window shares: the encoder output and the cross-attention keys and values. */
export interface WindowCrossAttention {
  session: OrtSession;
  /** Set when the session projects the logits in 8 bits (onnx-int8-logits.ts). */
  projection: Int8Projection | null;
  encoderHiddenStates: OrtTensor;
  /** past_key_values.<layer>.encoder.{key,value}, by input name. */
  keysValues: Record<string, OrtTensor>;
  layers: number;
  /** An empty self-attention cache entry, [1, heads, 0, head size]. */
  emptyPast: OrtTensor;
}

const decoderPast = (layer: number, kind: "key" | "value") => `past_key_values.${layer}.decoder.${kind}`;
const encoderPast = (layer: number, kind: "key" | "value") => `past_key_values.${layer}.encoder.${kind}`;
const present = (name: string) => name.replace("past_key_values", "present");
const KINDS = ["key", "value"] as const;

function idsTensor(ids: readonly number[]): OrtTensor {
  const ort = onnxRuntime();
  return new ort.Tensor("int64", BigInt64Array.from(ids, (id) => BigInt(id)), [1, ids.length]);
}

/** The last row of an output of shape [1, tokens, n]. */
function lastRow(tensor: OrtTensor): Float32Array {
  const data = tensor.data as Float32Array;
  const width = tensor.dims.at(-1) as number;
  return data.subarray(data.length - width);
}

/** The outputs a step fetches for its logits. */
const logitsOutputs = (projection: Int8Projection | null) => (projection ? Object.values(INT8_LOGITS_OUTPUTS) : ["logits"]);

/** The logits row after the last token fed, from the step's outputs. */
function logitsRow(projection: Int8Projection | null, outputs: Record<string, OrtTensor>): LogitsRow {
  if (!projection) return exactRow(lastRow(outputs.logits));
  return int8Row(projection, lastRow(outputs[INT8_LOGITS_OUTPUTS.approximate]), lastRow(outputs[INT8_LOGITS_OUTPUTS.timestamps]), outputs[INT8_LOGITS_OUTPUTS.hidden].data);
}

/**
 * The window's first step, from <|startoftranscript|> alone (the else branch): its logits (language and
 * no-speech, first-step.ts) and the window's cross-attention keys and values.
 */
export async function startWindow(
  session: OrtSession,
  projection: Int8Projection | null,
  encoderHiddenStates: OrtTensor,
  sot: number,
): Promise<{ logits: LogitsRow; cross: WindowCrossAttention }> {
  const ort = onnxRuntime();
  const layers = (session.inputNames as string[]).filter((name) => /^past_key_values\.\d+\.decoder\.key$/.test(name)).length;
  // An empty cache entry, [1, heads, 0, head size], from the input's declared shape.
  const declared = (session.inputMetadata as { name: string; shape: (number | string)[] }[]).find((input) => input.name === decoderPast(0, "key"))!;
  const emptyPast = new ort.Tensor("float32", new Float32Array(0), declared.shape.map((dim, i) => (typeof dim === "number" ? dim : i === 0 ? 1 : 0)));
  const feeds: Record<string, OrtTensor> = {
    input_ids: idsTensor([sot]),
    encoder_hidden_states: encoderHiddenStates,
    use_cache_branch: new ort.Tensor("bool", [false], [1]),
  };
  const fetches = logitsOutputs(projection);
  for (let layer = 0; layer < layers; layer++) {
    for (const kind of KINDS) {
      feeds[decoderPast(layer, kind)] = emptyPast;
      feeds[encoderPast(layer, kind)] = emptyPast;
      fetches.push(present(encoderPast(layer, kind)));
    }
  }
  const outputs = await session.run(feeds, fetches);
  const keysValues: Record<string, OrtTensor> = {};
  for (let layer = 0; layer < layers; layer++) for (const kind of KINDS) keysValues[encoderPast(layer, kind)] = outputs[present(encoderPast(layer, kind))];
  return { logits: logitsRow(projection, outputs), cross: { session, projection, encoderHiddenStates, keysValues, layers, emptyPast } };
}

/** One decode's steps: the self-attention cache it has built so far. */
export class DecoderSteps {
  private past: Record<string, OrtTensor> = {};
  private readonly fetches: string[];
  private readonly useCache: OrtTensor;

  constructor(
    private readonly cross: WindowCrossAttention,
    /** Fetch the cross-attention weights of each step (word timestamps). */
    private readonly withCrossAttentions: boolean,
  ) {
    const ort = onnxRuntime();
    this.useCache = new ort.Tensor("bool", [true], [1]);
    this.fetches = logitsOutputs(cross.projection);
    for (let layer = 0; layer < cross.layers; layer++) {
      for (const kind of KINDS) {
        this.past[decoderPast(layer, kind)] = cross.emptyPast;
        this.fetches.push(present(decoderPast(layer, kind)));
      }
      if (withCrossAttentions) this.fetches.push(`cross_attentions.${layer}`);
    }
  }

  /** Feeds these tokens (the prompt, then one token a step): the logits row after the last, and the cross-attention weights per layer when asked for. */
  async step(ids: readonly number[]): Promise<{ logits: LogitsRow; crossAttentions: OrtTensor[] | null }> {
    const { cross } = this;
    const feeds = { input_ids: idsTensor(ids), encoder_hidden_states: cross.encoderHiddenStates, use_cache_branch: this.useCache, ...cross.keysValues, ...this.past };
    const outputs = await cross.session.run(feeds, this.fetches);
    for (const name of Object.keys(this.past)) this.past[name] = outputs[present(name)];
    const crossAttentions = this.withCrossAttentions ? Array.from({ length: cross.layers }, (_, layer) => outputs[`cross_attentions.${layer}`]) : null;
    return { logits: logitsRow(cross.projection, outputs), crossAttentions };
  }
}
