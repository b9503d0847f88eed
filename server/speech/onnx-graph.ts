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
 *   DequantizeLinear move to the main graph and both branches read its output: one copy. The engine uses
 *   it only where the 8-bit projection (onnx-int8-logits.ts, no float copy at all) does not apply.
 * - fuseEncoderAttention (encoder): each self-attention is exported as MatMul(Q, Kᵀ) → Softmax → MatMul(·, V)
 *   on 6 × 1500 × 1500 scores for tiny: two such 54 MB tensors are alive at once, the encoder's memory
 *   peak. onnxruntime's MultiHeadAttention (com.microsoft, CPU) takes Q, K and V as they come out of their
 *   projections and computes the same in tiles (flash attention), never holding the score matrix.
 */

import { PROTO, fieldsOf, int64sOf, lengthDelimited, stringField, varintField, floatField, type NodeInfo, GraphView, rewriteOrNull, withGraph, mainGraph, renameInput, microsoftOpsetImport } from "./onnx-proto";

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
  return withGraph(model, main.field, main.rewritten({ drop, replace }), microsoftOpsetImport(model));
}
