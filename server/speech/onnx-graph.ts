/**
 * Two rewrites of Whisper's ONNX files (transformers.js / Optimum exports), done on their protobuf bytes
 * before onnxruntime loads them, to lower the engine's memory. Each computes exactly what the original
 * computes, and returns null when the file is not shaped as expected (it is then loaded as it is).
 *
 * - shareTiedEmbeddingProjection (merged decoder): the decoder is one `If` node with two branches, without
 *   and with the key/value cache, and in the q8 exports each branch computes the logits from its own copy
 *   of the tied embedding: Transpose(int8 embedding) → DequantizeLinear → MatMul. onnxruntime folds the
 *   dequantization at load (session.disable_quant_qdq, whisper/model.ts) once per branch: two identical
 *   float matrices of vocabulary × width (76 MB each for tiny). One branch's Transpose and
 *   DequantizeLinear move to the main graph and both branches read its output: one copy.
 * - fuseEncoderAttention (encoder): each self-attention is exported as MatMul(Q, Kᵀ) → Softmax → MatMul(·, V)
 *   on 6 × 1500 × 1500 scores for tiny: two such 54 MB tensors are alive at once, the encoder's memory
 *   peak. onnxruntime's MultiHeadAttention (com.microsoft, CPU) takes Q, K and V as they come out of their
 *   projections and computes the same in tiles (flash attention), never holding the score matrix.
 */

const PROTO = {
  model: { graph: 7, opsetImport: 8 },
  opset: { domain: 1, version: 2 },
  graph: { node: 1, initializer: 5, output: 12, valueInfo: 13 },
  node: { input: 1, output: 2, name: 3, opType: 4, attribute: 5, domain: 7 },
  attribute: { name: 1, f: 2, i: 3, t: 5, graph: 6, ints: 8, type: 20 },
  attributeType: { float: 1, int: 2 },
  named: { name: 1 }, // ValueInfoProto.name
  tensor: { dims: 1, dataType: 2, int64Data: 7, name: 8, rawData: 9 },
  int64: 7,
} as const;

interface Field {
  no: number;
  wire: number;
  /** The whole field (tag, length, value) and its value, as offsets into the buffer. */
  start: number;
  end: number;
  valueStart: number;
  valueEnd: number;
}

function readVarint(bytes: Uint8Array, at: number): [value: bigint, next: number] {
  let value = 0n;
  let shift = 0n;
  for (;;) {
    if (at >= bytes.length) throw new Error("truncated protobuf");
    const byte = bytes[at++]!;
    value |= BigInt(byte & 0x7f) << shift;
    if (byte < 0x80) return [value, at];
    shift += 7n;
  }
}

/** The fields of one message, in order (wire types 0, 1, 2 and 5; groups do not occur in ONNX). */
function fieldsOf(bytes: Uint8Array, start: number, end: number): Field[] {
  const fields: Field[] = [];
  let at = start;
  while (at < end) {
    const fieldStart = at;
    const [key, afterKey] = readVarint(bytes, at);
    const wire = Number(key & 7n);
    let valueStart = afterKey;
    let valueEnd: number;
    if (wire === 0) valueEnd = readVarint(bytes, afterKey)[1];
    else if (wire === 1) valueEnd = afterKey + 8;
    else if (wire === 5) valueEnd = afterKey + 4;
    else if (wire === 2) {
      const [length, afterLength] = readVarint(bytes, afterKey);
      valueStart = afterLength;
      valueEnd = afterLength + Number(length);
    } else throw new Error(`unexpected protobuf wire type ${wire}`);
    if (valueEnd > end) throw new Error("truncated protobuf");
    fields.push({ no: Number(key >> 3n), wire, start: fieldStart, end: valueEnd, valueStart, valueEnd });
    at = valueEnd;
  }
  return fields;
}

const utf8 = new TextDecoder();
const textOf = (bytes: Uint8Array, field: Field) => utf8.decode(bytes.subarray(field.valueStart, field.valueEnd));
/** A signed 64-bit integer field (ONNX ints are int64: -1 arrives as 2⁶⁴ − 1). */
const int64Of = (bytes: Uint8Array, field: Field) => Number(BigInt.asIntN(64, readVarint(bytes, field.valueStart)[0]));

/** Packed or repeated int64 values of field `no` among `fields`. */
function int64sOf(bytes: Uint8Array, fields: Field[], no: number): number[] {
  const values: number[] = [];
  for (const field of fields) {
    if (field.no !== no) continue;
    if (field.wire === 0) values.push(int64Of(bytes, field));
    else
      for (let at = field.valueStart; at < field.valueEnd; ) {
        const [value, next] = readVarint(bytes, at);
        values.push(Number(BigInt.asIntN(64, value)));
        at = next;
      }
  }
  return values;
}

function varintBytes(value: number): number[] {
  const out: number[] = [];
  while (value >= 0x80) {
    out.push((value % 128) | 0x80);
    value = Math.floor(value / 128);
  }
  out.push(value);
  return out;
}

/** A length-delimited field: tag, length, then the parts. */
function lengthDelimited(no: number, parts: Uint8Array[]): Uint8Array[] {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  return [Uint8Array.from([...varintBytes(no * 8 + 2), ...varintBytes(length)]), ...parts];
}
const stringField = (no: number, text: string) => lengthDelimited(no, [new TextEncoder().encode(text)]);
const varintField = (no: number, value: number) => Uint8Array.from([...varintBytes(no * 8), ...varintBytes(value)]);
function floatField(no: number, value: number): Uint8Array {
  const out = new Uint8Array(5);
  out[0] = no * 8 + 5;
  new DataView(out.buffer).setFloat32(1, value, true);
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

interface NodeInfo {
  field: Field;
  name: string;
  opType: string;
  domain: string;
  inputs: string[];
  outputs: string[];
  attributes: { name: string; field: Field; parts: Field[] }[];
}

function nodeInfo(bytes: Uint8Array, field: Field): NodeInfo {
  const info: NodeInfo = { field, name: "", opType: "", domain: "", inputs: [], outputs: [], attributes: [] };
  for (const part of fieldsOf(bytes, field.valueStart, field.valueEnd)) {
    if (part.no === PROTO.node.input) info.inputs.push(textOf(bytes, part));
    else if (part.no === PROTO.node.output) info.outputs.push(textOf(bytes, part));
    else if (part.no === PROTO.node.name) info.name = textOf(bytes, part);
    else if (part.no === PROTO.node.opType) info.opType = textOf(bytes, part);
    else if (part.no === PROTO.node.domain) info.domain = textOf(bytes, part);
    else if (part.no === PROTO.node.attribute) {
      const parts = fieldsOf(bytes, part.valueStart, part.valueEnd);
      const name = parts.find((candidate) => candidate.no === PROTO.attribute.name);
      info.attributes.push({ name: name ? textOf(bytes, name) : "", field: part, parts });
    }
  }
  return info;
}

/** A graph's nodes with who produces and who reads each value. */
class GraphView {
  readonly fields: Field[];
  readonly nodes: NodeInfo[];
  readonly initializers = new Set<string>();
  private readonly producers = new Map<string, NodeInfo>();
  private readonly readers = new Map<string, NodeInfo[]>();
  /** Values that leave the graph (a reader the node list does not show). */
  private readonly outputs = new Set<string>();

  constructor(
    readonly bytes: Uint8Array,
    readonly field: Field,
  ) {
    this.fields = fieldsOf(bytes, field.valueStart, field.valueEnd);
    this.nodes = this.fields.filter((part) => part.no === PROTO.graph.node).map((part) => nodeInfo(bytes, part));
    for (const part of this.fields) {
      if (part.no !== PROTO.graph.initializer && part.no !== PROTO.graph.output) continue;
      const nameNo = part.no === PROTO.graph.initializer ? PROTO.tensor.name : PROTO.named.name;
      const name = fieldsOf(bytes, part.valueStart, part.valueEnd).find((candidate) => candidate.no === nameNo);
      if (name) (part.no === PROTO.graph.initializer ? this.initializers : this.outputs).add(textOf(bytes, name));
    }
    for (const node of this.nodes) {
      for (const output of node.outputs) this.producers.set(output, node);
      for (const input of node.inputs) this.readers.set(input, [...(this.readers.get(input) ?? []), node]);
    }
  }

  producer(name: string, opType: string): NodeInfo | null {
    const node = this.producers.get(name);
    return node && node.opType === opType && node.domain === "" ? node : null;
  }

  /** The one node reading `name`, when nothing else reads it (no other node, not a graph output). */
  onlyReader(name: string, opType: string): NodeInfo | null {
    const readers = this.readers.get(name) ?? [];
    if (readers.length !== 1 || this.outputs.has(name)) return null;
    return readers[0]!.opType === opType && readers[0]!.domain === "" ? readers[0]! : null;
  }

  isOutput(name: string) {
    return this.outputs.has(name);
  }

  /** Whether a node holds a graph of its own (If, Loop, Scan), whose reads this view does not see. */
  get hasSubgraphs() {
    return this.nodes.some((node) => node.attributes.some((attribute) => attribute.parts.some((part) => part.no === PROTO.attribute.graph)));
  }

  /** The int64 values of a Constant node's tensor or of an initializer. */
  constantInts(name: string): number[] | null {
    const constant = this.producers.get(name);
    let tensor: Field | undefined;
    if (constant?.opType === "Constant") {
      tensor = constant.attributes.find((attribute) => attribute.name === "value")?.parts.find((part) => part.no === PROTO.attribute.t);
    } else if (this.initializers.has(name)) {
      tensor = this.fields.find(
        (part) =>
          part.no === PROTO.graph.initializer &&
          fieldsOf(this.bytes, part.valueStart, part.valueEnd).some((candidate) => candidate.no === PROTO.tensor.name && textOf(this.bytes, candidate) === name),
      );
    }
    if (!tensor) return null;
    const parts = fieldsOf(this.bytes, tensor.valueStart, tensor.valueEnd);
    if (int64sOf(this.bytes, parts, PROTO.tensor.dataType)[0] !== PROTO.int64) return null;
    const raw = parts.find((part) => part.no === PROTO.tensor.rawData);
    if (!raw) return int64sOf(this.bytes, parts, PROTO.tensor.int64Data);
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + raw.valueStart, raw.valueEnd - raw.valueStart);
    return Array.from({ length: view.byteLength / 8 }, (_, i) => Number(view.getBigInt64(i * 8, true)));
  }

  /** This graph's bytes with nodes dropped or replaced, value annotations of dropped values removed, nodes added in front. */
  rewritten(options: { drop?: Set<NodeInfo>; replace?: Map<NodeInfo, Uint8Array[]>; prepend?: Uint8Array[] }): Uint8Array[] {
    const dropped = new Set<string>();
    for (const node of options.drop ?? []) for (const output of node.outputs) dropped.add(output);
    const byField = new Map(this.nodes.map((node) => [node.field.start, node]));
    const parts: Uint8Array[] = [...(options.prepend ?? [])];
    for (const part of this.fields) {
      const node = byField.get(part.start);
      if (node && options.drop?.has(node)) continue;
      if (node && options.replace?.has(node)) {
        parts.push(...options.replace.get(node)!);
        continue;
      }
      if (part.no === PROTO.graph.valueInfo) {
        const name = fieldsOf(this.bytes, part.valueStart, part.valueEnd).find((candidate) => candidate.no === PROTO.named.name);
        if (name && dropped.has(textOf(this.bytes, name))) continue; // shape annotation of a value no longer computed here
      }
      parts.push(this.bytes.subarray(part.start, part.end));
    }
    return parts;
  }
}

/** A file these parsers cannot read is loaded as it is: onnxruntime then says what is wrong with it. */
function rewriteOrNull(rewrite: () => Uint8Array | null): Uint8Array | null {
  try {
    return rewrite();
  } catch {
    return null;
  }
}

/** The model with its graph field replaced (and opset imports added). */
function withGraph(model: Uint8Array, graphField: Field, graph: Uint8Array[], extraOpsets: Uint8Array[] = []): Uint8Array {
  return concat([
    ...fieldsOf(model, 0, model.length).flatMap((field) => (field.start === graphField.start ? lengthDelimited(PROTO.model.graph, graph) : [model.subarray(field.start, field.end)])),
    ...extraOpsets,
  ]);
}

function mainGraph(model: Uint8Array): GraphView | null {
  const graphField = fieldsOf(model, 0, model.length).find((field) => field.no === PROTO.model.graph);
  return graphField ? new GraphView(model, graphField) : null;
}

/** A node that reads `from` reading `to` instead (its input fields rewritten, everything else as it was). */
function renameInput(bytes: Uint8Array, node: NodeInfo, from: string, to: string): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (const part of fieldsOf(bytes, node.field.valueStart, node.field.valueEnd)) {
    if (part.no === PROTO.node.input && textOf(bytes, part) === from) parts.push(...stringField(PROTO.node.input, to));
    else parts.push(bytes.subarray(part.start, part.end));
  }
  return lengthDelimited(PROTO.graph.node, parts);
}

/**
 * Returns the merged decoder with the tied-embedding projection shared by both branches, or null when the
 * model is not shaped like that.
 */
export function shareTiedEmbeddingProjection(model: Uint8Array): Uint8Array | null {
  return rewriteOrNull(() => shareProjection(model));
}

function shareProjection(model: Uint8Array): Uint8Array | null {
  const main = mainGraph(model);
  if (!main) return null;
  const ifNodes = main.nodes.filter((node) => node.opType === "If" && node.domain === "");
  if (ifNodes.length !== 1) return null;
  const ifNode = ifNodes[0]!;
  const branches = ifNode.attributes.flatMap((attribute) => {
    const graph = attribute.parts.find((part) => part.no === PROTO.attribute.graph);
    return graph ? [{ attribute, view: new GraphView(model, graph) }] : [];
  });
  if (branches.length !== 2 || branches.some((branch) => branch.view.hasSubgraphs)) return null;

  // In each branch: Transpose(outer initializer) → DequantizeLinear(·, outer scale, outer zero point).
  const projections = branches.map(({ view }) => {
    for (const transpose of view.nodes) {
      if (transpose.opType !== "Transpose" || transpose.domain !== "" || transpose.inputs.length !== 1 || transpose.outputs.length !== 1) continue;
      if (!main.initializers.has(transpose.inputs[0]!)) continue;
      const dequantize = view.onlyReader(transpose.outputs[0]!, "DequantizeLinear");
      if (!dequantize || dequantize.inputs[0] !== transpose.outputs[0] || dequantize.outputs.length !== 1) continue;
      if (!dequantize.inputs.slice(1).every((name) => main.initializers.has(name)) || view.isOutput(dequantize.outputs[0]!)) continue;
      // Same key in both branches = the same computation on the same outer values.
      const bytesOf = (node: NodeInfo) => node.attributes.map((attribute) => Buffer.from(model.subarray(attribute.field.start, attribute.field.end)).toString("base64"));
      const key = JSON.stringify([transpose.inputs, bytesOf(transpose), dequantize.inputs.slice(1), bytesOf(dequantize)]);
      return { transpose, dequantize, key };
    }
    return null;
  });
  const [first, second] = projections;
  if (!first || !second || first.key !== second.key) return null;
  const shared = first.dequantize.outputs[0]!;
  const replaced = second.dequantize.outputs[0]!;

  const secondView = branches[1]!.view;
  const renamed = new Map(secondView.nodes.filter((node) => node.inputs.includes(replaced)).map((node) => [node, renameInput(model, node, replaced, shared)]));
  const branchGraphs = [
    branches[0]!.view.rewritten({ drop: new Set([first.transpose, first.dequantize]) }),
    secondView.rewritten({ drop: new Set([second.transpose, second.dequantize]), replace: renamed }),
  ];
  const ifParts = fieldsOf(model, ifNode.field.valueStart, ifNode.field.valueEnd).flatMap((part) => {
    const index = branches.findIndex((branch) => branch.attribute.field.start === part.start);
    if (index < 0) return [model.subarray(part.start, part.end)];
    const attribute = branches[index]!.attribute;
    return lengthDelimited(
      PROTO.node.attribute,
      attribute.parts.flatMap((inner) => (inner.no === PROTO.attribute.graph ? lengthDelimited(PROTO.attribute.graph, branchGraphs[index]!) : [model.subarray(inner.start, inner.end)])),
    );
  });
  // The moved nodes come first: the main graph stays in topological order.
  const graph = main.rewritten({
    prepend: [model.subarray(first.transpose.field.start, first.transpose.field.end), model.subarray(first.dequantize.field.start, first.dequantize.field.end)],
    replace: new Map([[ifNode, lengthDelimited(PROTO.graph.node, ifParts)]]),
  });
  return withGraph(model, main.field, graph);
}

const permOf = (bytes: Uint8Array, node: NodeInfo) => {
  const perm = node.attributes.find((attribute) => attribute.name === "perm");
  return perm ? int64sOf(bytes, perm.parts, PROTO.attribute.ints).join(",") : "";
};

/**
 * Returns the encoder with every self-attention as one MultiHeadAttention node, or null when the model is
 * not shaped like that. The pattern, per layer: q, k and v of shape [batch, frames, heads × size] are each
 * reshaped to [batch, frames, heads, size] and transposed (to BNSH, k to BNHS); MatMul → Softmax(last axis)
 * → MatMul; transposed back to [batch, frames, heads, size]. Whatever scaling the export applies sits in q
 * or k before the reshape, so the fused node computes softmax(q·kᵀ)·v with scale 1.
 */
export function fuseEncoderAttention(model: Uint8Array): Uint8Array | null {
  return rewriteOrNull(() => fuseAttention(model));
}

function fuseAttention(model: Uint8Array): Uint8Array | null {
  const main = mainGraph(model);
  if (!main || main.hasSubgraphs) return null;
  const drop = new Set<NodeInfo>();
  const replace = new Map<NodeInfo, Uint8Array[]>();
  for (const softmax of main.nodes.filter((node) => node.opType === "Softmax" && node.domain === "")) {
    const axis = softmax.attributes.find((attribute) => attribute.name === "axis");
    const axisValue = axis ? int64sOf(model, axis.parts, PROTO.attribute.i)[0] : undefined;
    if (axisValue !== -1 && axisValue !== 3) continue;
    const scores = main.producer(softmax.inputs[0]!, "MatMul");
    const weighted = main.onlyReader(softmax.outputs[0]!, "MatMul");
    if (!scores || main.onlyReader(scores.outputs[0]!, "Softmax") !== softmax || !weighted || weighted.inputs[0] !== softmax.outputs[0]) continue;
    const back = main.onlyReader(weighted.outputs[0]!, "Transpose");
    if (!back || permOf(model, back) !== "0,2,1,3") continue;
    // Each of q, k, v: Reshape to [b, s, heads, size] → Transpose, read by the attention only.
    const side = (value: string, reader: NodeInfo, perm: string) => {
      const transpose = main.producer(value, "Transpose");
      if (!transpose || main.onlyReader(transpose.outputs[0]!, reader.opType) !== reader || permOf(model, transpose) !== perm) return null;
      const reshape = main.producer(transpose.inputs[0]!, "Reshape");
      if (!reshape || main.onlyReader(reshape.outputs[0]!, "Transpose") !== transpose) return null;
      const shape = main.producer(reshape.inputs[1]!, "Concat");
      const dims = shape?.inputs.map((input) => main.constantInts(input));
      const heads = dims?.at(-2)?.[0];
      const size = dims?.at(-1)?.[0];
      if (!dims || dims.length !== 4 || !heads || !size || heads <= 0 || size <= 0) return null;
      return { transpose, reshape, input: reshape.inputs[0]!, heads, size };
    };
    const q = side(scores.inputs[0]!, scores, "0,2,1,3");
    const k = side(scores.inputs[1]!, scores, "0,2,3,1");
    const v = side(weighted.inputs[1]!, weighted, "0,2,1,3");
    if (!q || !k || !v || q.heads !== k.heads || q.heads !== v.heads || q.size !== k.size) continue;
    // The Reshape after the attention must give [b, s, heads × size] from the fused node's output too: it
    // does when its target is [b, s, heads × size] (Whisper's out_proj input).
    const after = main.onlyReader(back.outputs[0]!, "Reshape");
    const afterShape = after && main.producer(after.inputs[1]!, "Concat");
    const width = afterShape?.inputs.length === 3 ? main.constantInts(afterShape.inputs[2]!)?.[0] : undefined;
    if (width !== q.heads * v.size) continue;

    for (const node of [q.reshape, q.transpose, k.reshape, k.transpose, v.reshape, v.transpose, scores, softmax, back]) drop.add(node);
    // In place of the second MatMul, where q, k and v are all computed; its output keeps the name the
    // layer's next node reads ([b, s, heads × size] instead of [b, s, heads, size]: the Reshape after it
    // gives [b, s, heads × size] either way).
    const attention = [
      ...stringField(PROTO.node.input, q.input),
      ...stringField(PROTO.node.input, k.input),
      ...stringField(PROTO.node.input, v.input),
      ...stringField(PROTO.node.output, back.outputs[0]!),
      ...stringField(PROTO.node.name, `${softmax.name}/MultiHeadAttention`),
      ...stringField(PROTO.node.opType, "MultiHeadAttention"),
      ...stringField(PROTO.node.domain, "com.microsoft"),
      ...lengthDelimited(PROTO.node.attribute, [
        ...stringField(PROTO.attribute.name, "num_heads"),
        varintField(PROTO.attribute.i, q.heads),
        varintField(PROTO.attribute.type, PROTO.attributeType.int),
      ]),
      ...lengthDelimited(PROTO.node.attribute, [
        ...stringField(PROTO.attribute.name, "scale"),
        floatField(PROTO.attribute.f, 1),
        varintField(PROTO.attribute.type, PROTO.attributeType.float),
      ]),
    ];
    replace.set(weighted, lengthDelimited(PROTO.graph.node, attention));
  }
  if (replace.size === 0) return null;
  const opsets = fieldsOf(model, 0, model.length).filter((field) => field.no === PROTO.model.opsetImport);
  const hasMicrosoft = opsets.some((field) =>
    fieldsOf(model, field.valueStart, field.valueEnd).some((part) => part.no === PROTO.opset.domain && textOf(model, part) === "com.microsoft"),
  );
  const extraOpsets = hasMicrosoft
    ? []
    : lengthDelimited(PROTO.model.opsetImport, [...stringField(PROTO.opset.domain, "com.microsoft"), varintField(PROTO.opset.version, 1)]);
  return withGraph(model, main.field, main.rewritten({ drop, replace }), extraOpsets);
}
