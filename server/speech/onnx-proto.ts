/**
 * Reading and writing ONNX files' protobuf bytes, just enough for Markbook's graph rewrites
 * (onnx-graph.ts, onnx-int8-logits.ts): fields as offsets into the original bytes, a graph's nodes with
 * who produces and reads each value, and fields built anew. Everything not rewritten is copied byte for
 * byte.
 */

export const PROTO = {
  model: { graph: 7, opsetImport: 8 },
  opset: { domain: 1, version: 2 },
  graph: { node: 1, initializer: 5, output: 12, valueInfo: 13 },
  node: { input: 1, output: 2, name: 3, opType: 4, attribute: 5, domain: 7 },
  attribute: { name: 1, f: 2, i: 3, t: 5, graph: 6, ints: 8, type: 20 },
  attributeType: { float: 1, int: 2 },
  named: { name: 1 }, // ValueInfoProto.name
  tensor: { dims: 1, dataType: 2, int64Data: 7, name: 8, rawData: 9 },
  float: 1,
  uint8: 2,
  int8: 3,
  int64: 7,
} as const;

export interface Field {
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
export function fieldsOf(bytes: Uint8Array, start: number, end: number): Field[] {
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
export function int64sOf(bytes: Uint8Array, fields: Field[], no: number): number[] {
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
export function lengthDelimited(no: number, parts: Uint8Array[]): Uint8Array[] {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  return [Uint8Array.from([...varintBytes(no * 8 + 2), ...varintBytes(length)]), ...parts];
}
export const stringField = (no: number, text: string) => lengthDelimited(no, [new TextEncoder().encode(text)]);
export const varintField = (no: number, value: number) => Uint8Array.from([...varintBytes(no * 8), ...varintBytes(value)]);
export function floatField(no: number, value: number): Uint8Array {
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

export interface NodeInfo {
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
export class GraphView {
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
  rewritten(options: {
    drop?: Set<NodeInfo>;
    replace?: Map<NodeInfo, Uint8Array[]>;
    prepend?: Uint8Array[];
    /** Fields added after the graph's own (nodes that read what the graph computes, outputs, initializers). */
    append?: Uint8Array[];
    /** Other fields (outputs, initializers) replaced, by their Field.start. */
    replaceFields?: Map<number, Uint8Array[]>;
  }): Uint8Array[] {
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
      if (options.replaceFields?.has(part.start)) {
        parts.push(...options.replaceFields.get(part.start)!);
        continue;
      }
      if (part.no === PROTO.graph.valueInfo) {
        const name = fieldsOf(this.bytes, part.valueStart, part.valueEnd).find((candidate) => candidate.no === PROTO.named.name);
        if (name && dropped.has(textOf(this.bytes, name))) continue; // shape annotation of a value no longer computed here
      }
      parts.push(this.bytes.subarray(part.start, part.end));
    }
    return [...parts, ...(options.append ?? [])];
  }

  /** The graph's outputs (ValueInfoProto fields), in order, with their names. */
  get outputFields(): { name: string; field: Field }[] {
    return this.fields
      .filter((part) => part.no === PROTO.graph.output)
      .map((field) => {
        const name = fieldsOf(this.bytes, field.valueStart, field.valueEnd).find((candidate) => candidate.no === PROTO.named.name);
        return { name: name ? textOf(this.bytes, name) : "", field };
      });
  }

  /** An initializer's type, shape and raw bytes (a view into the file), or null when it has none or no raw data. */
  initializer(name: string): { dataType: number; dims: number[]; raw: Uint8Array } | null {
    for (const part of this.fields) {
      if (part.no !== PROTO.graph.initializer) continue;
      const parts = fieldsOf(this.bytes, part.valueStart, part.valueEnd);
      const named = parts.find((candidate) => candidate.no === PROTO.tensor.name);
      if (!named || textOf(this.bytes, named) !== name) continue;
      const raw = parts.find((candidate) => candidate.no === PROTO.tensor.rawData);
      if (!raw) return null;
      return { dataType: int64sOf(this.bytes, parts, PROTO.tensor.dataType)[0] ?? 0, dims: int64sOf(this.bytes, parts, PROTO.tensor.dims), raw: this.bytes.subarray(raw.valueStart, raw.valueEnd) };
    }
    return null;
  }
}

/** A node (NodeProto field of a graph), without attributes. */
export function nodeField(node: { name: string; opType: string; domain?: string; inputs: string[]; outputs: string[] }): Uint8Array[] {
  return lengthDelimited(PROTO.graph.node, [
    ...node.inputs.flatMap((input) => stringField(PROTO.node.input, input)),
    ...node.outputs.flatMap((output) => stringField(PROTO.node.output, output)),
    ...stringField(PROTO.node.name, node.name),
    ...stringField(PROTO.node.opType, node.opType),
    ...(node.domain ? stringField(PROTO.node.domain, node.domain) : []),
  ]);
}

/** A graph output (ValueInfoProto field) of float32 values, its shape left to onnxruntime's inference. */
export function floatOutputField(name: string): Uint8Array[] {
  // TypeProto { tensor_type (1) { elem_type (1) = FLOAT } }
  return lengthDelimited(PROTO.graph.output, [...stringField(PROTO.named.name, name), ...lengthDelimited(2, lengthDelimited(1, [varintField(1, PROTO.float)]))]);
}

/** An int64 initializer (TensorProto field of a graph). */
export function int64InitializerField(name: string, values: number[]): Uint8Array[] {
  const raw = new Uint8Array(values.length * 8);
  values.forEach((value, i) => new DataView(raw.buffer).setBigInt64(i * 8, BigInt(value), true));
  return lengthDelimited(PROTO.graph.initializer, [varintField(PROTO.tensor.dims, values.length), varintField(PROTO.tensor.dataType, PROTO.int64), ...stringField(PROTO.tensor.name, name), ...lengthDelimited(PROTO.tensor.rawData, [raw])]);
}

/** The model imports the com.microsoft operator set, or the opset import field to add for it. */
export function microsoftOpsetImport(model: Uint8Array): Uint8Array[] {
  const opsets = fieldsOf(model, 0, model.length).filter((field) => field.no === PROTO.model.opsetImport);
  const hasMicrosoft = opsets.some((field) =>
    fieldsOf(model, field.valueStart, field.valueEnd).some((part) => part.no === PROTO.opset.domain && textOf(model, part) === "com.microsoft"),
  );
  return hasMicrosoft ? [] : lengthDelimited(PROTO.model.opsetImport, [...stringField(PROTO.opset.domain, "com.microsoft"), varintField(PROTO.opset.version, 1)]);
}

/** A file these parsers cannot read is loaded as it is: onnxruntime then says what is wrong with it. */
export function rewriteOrNull<T>(rewrite: () => T | null): T | null {
  try {
    return rewrite();
  } catch {
    return null;
  }
}

/** The model with its graph field replaced (and opset imports added). */
export function withGraph(model: Uint8Array, graphField: Field, graph: Uint8Array[], extraOpsets: Uint8Array[] = []): Uint8Array {
  return concat([
    ...fieldsOf(model, 0, model.length).flatMap((field) => (field.start === graphField.start ? lengthDelimited(PROTO.model.graph, graph) : [model.subarray(field.start, field.end)])),
    ...extraOpsets,
  ]);
}

export function mainGraph(model: Uint8Array): GraphView | null {
  const graphField = fieldsOf(model, 0, model.length).find((field) => field.no === PROTO.model.graph);
  return graphField ? new GraphView(model, graphField) : null;
}

/** A node that reads `from` reading `to` instead (its input fields rewritten, everything else as it was). */
export function renameInput(bytes: Uint8Array, node: NodeInfo, from: string, to: string): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (const part of fieldsOf(bytes, node.field.valueStart, node.field.valueEnd)) {
    if (part.no === PROTO.node.input && textOf(bytes, part) === from) parts.push(...stringField(PROTO.node.input, to));
    else parts.push(bytes.subarray(part.start, part.end));
  }
  return lengthDelimited(PROTO.graph.node, parts);
}
