/**
 * The merged decoder's logits computed from the tied embedding as it is stored, in 8 bits, instead of from
 * a float copy of it: a rewrite of the q8 export's protobuf bytes, done before onnxruntime loads it.
 *
 * Each step of the exported decoder ends with MatMul(hidden state, DequantizeLinear(Transpose(embedding))):
 * onnxruntime folds the dequantization at load into a float matrix of vocabulary × width (76 MB for
 * tiny), and reading it is half of every step. Rewritten, the two branches of the `If` return the hidden
 * state, and after them:
 * - `approximate_logits`: DynamicQuantizeMatMul (com.microsoft) of the hidden state on the 8-bit
 *   embedding as stored (a quarter of the bytes read). Its only error is the hidden state's rounding to 8
 *   bits, which the decoder bounds per token (whisper/logits-row.ts) to find the tokens that may win;
 * - `timestamp_logits`: the timestamp tokens' logits, exact (a float MatMul on their 1501 columns only),
 *   because the timestamp rule sums all of them;
 * - `hidden_state`: the hidden state itself, from which the decoder computes the exact logit of any token
 *   that may win.
 * The float matrix is never made: the engine's memory drops by its size.
 */
import {
  type Field,
  GraphView,
  type NodeInfo,
  PROTO,
  fieldsOf,
  int64sOf,
  floatOutputField,
  int64InitializerField,
  lengthDelimited,
  mainGraph,
  microsoftOpsetImport,
  nodeField,
  rewriteOrNull,
  withGraph,
} from "./onnx-proto";

export const INT8_LOGITS_OUTPUTS = { approximate: "approximate_logits", timestamps: "timestamp_logits", hidden: "hidden_state" } as const;

/** The tied embedding as stored: `rows` × `width` 8-bit values, each value's float being (q − zeroPoint) × scale. */
export interface StoredEmbedding {
  values: Uint8Array | Int8Array;
  rows: number;
  width: number;
  scale: number;
  zeroPoint: number;
}

export interface Int8LogitsDecoder {
  model: Uint8Array;
  /** A copy of the embedding (the decoder's exact logits are computed from it). */
  embedding: StoredEmbedding;
}

/**
 * The rewritten merged decoder and its embedding, or null when the file is not a q8 merged decoder shaped
 * as expected (it is then loaded as it is, and decoded from its float logits).
 */
export function int8LogitsDecoder(model: Uint8Array, firstTimestamp: number): Int8LogitsDecoder | null {
  return rewriteOrNull(() => rewrite(model, firstTimestamp));
}

interface BranchProjection {
  attribute: NodeInfo["attributes"][number];
  view: GraphView;
  drop: Set<NodeInfo>;
  hidden: string;
  logitsOutput: Field;
  /** Same key in both branches: the same projection of the same outer values. */
  key: string;
  embedding: string;
  scale: string;
  zeroPoint: string;
}

/** In a branch: its first output = MatMul(hidden, DequantizeLinear(Transpose(outer embedding), outer scale, outer zero point)). */
function branchProjection(main: GraphView, attribute: NodeInfo["attributes"][number], view: GraphView): BranchProjection | null {
  const [logits] = view.outputFields;
  if (!logits) return null;
  const matMul = view.producer(logits.name, "MatMul");
  if (!matMul || matMul.inputs.length !== 2) return null;
  const dequantize = view.producer(matMul.inputs[1]!, "DequantizeLinear");
  if (!dequantize || view.onlyReader(dequantize.outputs[0]!, "MatMul") !== matMul || dequantize.inputs.length !== 3) return null;
  const transpose = view.producer(dequantize.inputs[0]!, "Transpose");
  if (!transpose || view.onlyReader(transpose.outputs[0]!, "DequantizeLinear") !== dequantize || transpose.inputs.length !== 1) return null;
  // [vocabulary, width] → [width, vocabulary]: `perm` is [1, 0] or absent (reversed axes).
  const perm = transpose.attributes.find((attribute) => attribute.name === "perm");
  if (transpose.attributes.length > (perm ? 1 : 0) || (perm && int64sOf(main.bytes, perm.parts, PROTO.attribute.ints).join() !== "1,0")) return null;
  if (dequantize.attributes.length > 0) return null;
  const [embedding, scale, zeroPoint] = [transpose.inputs[0]!, dequantize.inputs[1]!, dequantize.inputs[2]!];
  if (![embedding, scale, zeroPoint].every((name) => main.initializers.has(name))) return null;
  return {
    attribute,
    view,
    drop: new Set([matMul, dequantize, transpose]),
    hidden: matMul.inputs[0]!,
    logitsOutput: logits.field,
    key: JSON.stringify([embedding, scale, zeroPoint]),
    embedding,
    scale,
    zeroPoint,
  };
}

/** The embedding's initializers: 2-D 8-bit values, a scalar float scale and a scalar zero point of the same type. */
function storedEmbedding(main: GraphView, projection: BranchProjection): StoredEmbedding | null {
  const values = main.initializer(projection.embedding);
  const scale = main.initializer(projection.scale);
  const zeroPoint = main.initializer(projection.zeroPoint);
  if (!values || !scale || !zeroPoint) return null;
  if (values.dims.length !== 2 || (values.dataType !== PROTO.uint8 && values.dataType !== PROTO.int8)) return null;
  if (scale.dataType !== PROTO.float || scale.dims.length !== 0 || zeroPoint.dataType !== values.dataType || zeroPoint.dims.length !== 0) return null;
  const [rows, width] = values.dims as [number, number];
  if (values.raw.length !== rows * width) return null;
  // A copy (the file's bytes are freed once onnxruntime has them; Buffer's slice() would be a view).
  const copy = new Uint8Array(values.raw);
  const signed = values.dataType === PROTO.int8;
  return {
    values: signed ? new Int8Array(copy.buffer) : copy,
    rows,
    width,
    scale: new DataView(scale.raw.buffer, scale.raw.byteOffset, 4).getFloat32(0, true),
    zeroPoint: signed ? new Int8Array(zeroPoint.raw.buffer, zeroPoint.raw.byteOffset, 1)[0]! : zeroPoint.raw[0]!,
  };
}

function rewrite(model: Uint8Array, firstTimestamp: number): Int8LogitsDecoder | null {
  const main = mainGraph(model);
  if (!main) return null;
  const ifNodes = main.nodes.filter((node) => node.opType === "If" && node.domain === "");
  if (ifNodes.length !== 1) return null;
  const ifNode = ifNodes[0]!;
  const [mainLogits] = main.outputFields;
  if (!mainLogits || ifNode.outputs[0] !== mainLogits.name) return null;
  const branches = ifNode.attributes.flatMap((attribute) => {
    const graph = attribute.parts.find((part) => part.no === PROTO.attribute.graph);
    return graph ? [{ attribute, view: new GraphView(model, graph) }] : [];
  });
  if (branches.length !== 2 || branches.some((branch) => branch.view.hasSubgraphs)) return null;
  const projections = branches.map(({ attribute, view }) => branchProjection(main, attribute, view));
  const [first, second] = projections;
  if (!first || !second || first.key !== second.key) return null;
  const both = [first, second];
  const embedding = storedEmbedding(main, first);
  if (!embedding || !(firstTimestamp > 0 && firstTimestamp < embedding.rows)) return null;

  // Each branch returns its hidden state in place of its logits.
  const branchGraphs = both.map((projection) =>
    projection.view.rewritten({
      drop: projection.drop,
      replaceFields: new Map([[projection.logitsOutput.start, floatOutputField(projection.hidden)]]),
    }),
  );
  const ifParts = fieldsOf(model, ifNode.field.valueStart, ifNode.field.valueEnd).flatMap((part, _index, parts) => {
    const branch = both.findIndex((projection) => projection.attribute.field.start === part.start);
    if (branch >= 0) {
      const { attribute } = both[branch]!;
      return lengthDelimited(
        PROTO.node.attribute,
        attribute.parts.flatMap((inner) => (inner.no === PROTO.attribute.graph ? lengthDelimited(PROTO.attribute.graph, branchGraphs[branch]!) : [model.subarray(inner.start, inner.end)])),
      );
    }
    // The If's first output (the logits) is now the hidden state.
    const firstOutput = parts.find((candidate) => candidate.no === PROTO.node.output);
    if (part === firstOutput) return lengthDelimited(PROTO.node.output, [new TextEncoder().encode(INT8_LOGITS_OUTPUTS.hidden)]);
    return [model.subarray(part.start, part.end)];
  });

  const { embedding: stored, scale, zeroPoint } = first;
  const name = (value: string) => `markbook/int8_logits/${value}`;
  const transposed = name("embedding_transposed");
  const timestampColumns = name("timestamp_columns");
  const timestampWeights = name("timestamp_weights");
  const appended = [
    ...nodeField({ name: name("Transpose"), opType: "Transpose", inputs: [stored], outputs: [transposed] }),
    ...nodeField({
      name: name("DynamicQuantizeMatMul"),
      opType: "DynamicQuantizeMatMul",
      domain: "com.microsoft",
      inputs: [INT8_LOGITS_OUTPUTS.hidden, transposed, scale, zeroPoint],
      outputs: [INT8_LOGITS_OUTPUTS.approximate],
    }),
    ...nodeField({ name: name("Slice"), opType: "Slice", inputs: [transposed, name("starts"), name("ends"), name("axes")], outputs: [timestampColumns] }),
    ...nodeField({ name: name("DequantizeLinear"), opType: "DequantizeLinear", inputs: [timestampColumns, scale, zeroPoint], outputs: [timestampWeights] }),
    ...nodeField({ name: name("MatMul"), opType: "MatMul", inputs: [INT8_LOGITS_OUTPUTS.hidden, timestampWeights], outputs: [INT8_LOGITS_OUTPUTS.timestamps] }),
    ...int64InitializerField(name("starts"), [firstTimestamp]),
    ...int64InitializerField(name("ends"), [embedding.rows]),
    ...int64InitializerField(name("axes"), [1]),
    ...floatOutputField(INT8_LOGITS_OUTPUTS.timestamps),
    ...floatOutputField(INT8_LOGITS_OUTPUTS.hidden),
  ];
  const graph = main.rewritten({
    replace: new Map([[ifNode, lengthDelimited(PROTO.graph.node, ifParts)]]),
    replaceFields: new Map([[mainLogits.field.start, floatOutputField(INT8_LOGITS_OUTPUTS.approximate)]]),
    append: appended,
  });
  return { model: withGraph(model, main.field, graph, microsoftOpsetImport(model)), embedding };
}
