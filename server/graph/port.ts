/**
 * The graph port: a property graph partitioned into named databases, as Neo4j is. Two adapters
 * implement it: the embedded SQL tables (server/graph/embedded.ts, the default) and Neo4j
 * (server/graph/neo4j.ts). The same contract tests (tests/graph-port.test.ts) run against both.
 *
 * A node is identified within its database by its id (the natural key of the thing it stands for: a
 * user id, a question id, an exam code). Its first label is its type. Ids are unique per database
 * across labels; writing an existing id with another label is refused.
 */

export interface GraphNodeInput {
  label: string;
  /** The node's id in its database. */
  key: string;
  /** Merged into the stored properties (keys not given are kept; a null removes one), as Cypher's `SET n += $props`. */
  properties?: Record<string, unknown>;
  /**
   * The writer that owns the node (a template's projection: the template id), kept in the property
   * OWNER_PROPERTY. A node owned by one owner is never written by a write with another owner or none
   * (the unit fails with GraphNodeOwnedError); a node without an owner is claimed by the first owner that
   * writes it.
   */
  owner?: string;
}

/** The property that records a node's owner: reserved, like `id` (a value given in `properties` is ignored). */
export const OWNER_PROPERTY = "projected_by";

/** A write met a node that another owner projected: the whole unit of work is refused. */
export class GraphNodeOwnedError extends Error {
  constructor(
    readonly database: string,
    readonly key: string,
    readonly label: string,
  ) {
    super(`Graph node ${JSON.stringify(key)} (${label}) in ${database} belongs to another owner's projection`);
    this.name = "GraphNodeOwnedError";
  }
}

/**
 * A write met a node with the same id and another type (a region written over a question's id): the
 * whole unit of work is refused. `existingLabel` is null when the adapter cannot say cheaply.
 */
export class GraphNodeTypeClashError extends Error {
  constructor(
    readonly database: string,
    readonly key: string,
    readonly label: string,
    readonly existingLabel: string | null,
  ) {
    super(`Graph node ${JSON.stringify(key)} in ${database} exists with a type other than ${label}${existingLabel ? ` (${existingLabel})` : ""}`);
    this.name = "GraphNodeTypeClashError";
  }
}

/** The stored properties of a node input: the reserved owner property comes from `owner` only. */
export function ownedProperties(node: GraphNodeInput): Record<string, unknown> {
  const { [OWNER_PROPERTY]: _ignored, ...properties } = node.properties ?? {};
  return node.owner === undefined ? properties : { ...properties, [OWNER_PROPERTY]: node.owner };
}

interface GraphNodeRef {
  label: string;
  key: string;
}

export interface GraphRelationshipInput {
  from: GraphNodeRef;
  type: string;
  to: GraphNodeRef;
  properties?: Record<string, unknown>;
}

export interface GraphNode {
  id: string;
  /** The first label: the node's type. */
  node_type: string;
  labels: string[];
  properties: Record<string, unknown>;
}

export interface GraphChild extends GraphNode {
  /** Type of the relationship from the parent to this child. */
  relationship: string;
  /** Whether this child has children itself (a tree view shows an expander). */
  has_children: boolean;
}

export interface ChildrenFilter {
  /** Only children whose type is exactly this. */
  nodeType?: string;
  /** Only children whose type starts with this (the global calendar: "Calendar"). */
  nodeTypePrefix?: string;
}

/**
 * What a template's projection replaces: the question, part and region nodes it owns, wherever they hang
 * (a changed exam_code leaves them under the old paper), and the paper's specification links (they
 * follow from the exam_code alone). Nodes written before owners were recorded (no owner) go too when
 * they hang from the paper or carry an id the new projection uses. A node another owner projected is
 * never removed, wherever it hangs and whatever ids are named.
 */
export interface PaperStructure {
  paperKey: string;
  /** The template whose projection this is. */
  owner: string;
  /** Ids of the question, part and region nodes about to be written. */
  nodeKeys: string[];
}

/** Writes of one unit of work: all of them happen, or none. */
export interface GraphWriter {
  upsertNodes(nodes: GraphNodeInput[]): Promise<void>;
  /** Both ends must exist (written before, or earlier in this unit); a missing end fails the unit. */
  upsertRelationships(relationships: GraphRelationshipInput[]): Promise<void>;
  /** Detach-deletes the owner's question/part/region nodes and the paper's specification links (see PaperStructure). */
  removePaperStructure(structure: PaperStructure): Promise<void>;
}

export interface GraphStore {
  readonly kind: "embedded" | "neo4j";
  /** Runs `work` as one unit of work in `database`: all its writes happen, or none. */
  write<T>(database: string, work: (writer: GraphWriter) => Promise<T>): Promise<T>;
  getNode(database: string, id: string): Promise<GraphNode | null>;
  /**
   * The nodes the given node links to, ordered by their numeric `order` property (absent last), then
   * by id (code-point order). Null when the node does not exist.
   */
  listChildren(database: string, id: string, filter?: ChildrenFilter): Promise<GraphChild[] | null>;
  close(): Promise<void>;
}

// Labels and relationship types are spliced into Cypher (they cannot be parameters), so both adapters
// accept only these shapes.
const labelShape = /^[A-Z][A-Za-z0-9_]{0,63}$/;
const relationshipTypeShape = /^[A-Z][A-Z0-9_]{0,63}$/;

export function assertLabel(label: string): string {
  if (!labelShape.test(label)) throw new Error(`Invalid graph label ${JSON.stringify(label)}`);
  return label;
}

export function assertRelationshipType(type: string): string {
  if (!relationshipTypeShape.test(type)) throw new Error(`Invalid graph relationship type ${JSON.stringify(type)}`);
  return type;
}

export function assertNodeKey(key: string): string {
  if (typeof key !== "string" || key.length === 0 || key.length > 512) throw new Error(`Invalid graph node key ${JSON.stringify(key)}`);
  return key;
}

/** Structural relationship types of a paper's projection. */
export const paperLinks = {
  hasQuestion: "HAS_QUESTION",
  hasPart: "HAS_PART",
  hasRegion: "HAS_REGION",
  hasSpecification: "HAS_SPECIFICATION",
  assesses: "ASSESSES",
} as const;

export const paperLabels = {
  paper: "Paper",
  question: "Question",
  part: "Part",
  region: "Region",
  specification: "Specification",
  specificationPoint: "SpecificationPoint",
} as const;
