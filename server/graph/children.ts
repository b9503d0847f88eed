import { z } from "zod";
import { text } from "../../lib/rules/input-rules";
import type { Db } from "../db/client";
import { asUser } from "../db/rls";
import { AppError } from "../errors";
import { globalGraphDatabase, graphStore } from "./index";
import { type CallerGraphDatabases, findCallerGraphDatabases, isOwnGraphDatabase } from "./access";

/**
 * GET /graph/node/children: the children of one graph node, for lazy tree views. The caller may read
 * their personal graph database, the graph and curriculum databases of their institutes, and the
 * shared global database for calendar node types only.
 */

// Messages read after the field name: "neo4j_db_name: required".
const requiredText = text(512).trim().min(1, "required");

export const graphChildrenInput = z.object({
  neo4j_node_id: requiredText.describe("Id of the node whose children are listed"),
  neo4j_db_name: requiredText.describe(
    "Graph database of the node: the caller's personal, institute or curriculum database, or the global one for calendar nodes",
  ),
  node_type: text(64).trim().min(1).optional().describe("Only children of this type; a type starting with Calendar allows the global database"),
  section_id: text(64).trim().min(1).optional().describe("`calendar` allows the global database"),
});
export type GraphChildrenInput = z.input<typeof graphChildrenInput>;

const graphChildSchema = z.object({
  neo4j_node_id: z.string(),
  node_type: z.string(),
  labels: z.array(z.string()),
  relationship: z.string(),
  has_children: z.boolean(),
  properties: z.record(z.string(), z.unknown()),
});

export const graphChildrenOutput = z.object({
  status: z.literal("success"),
  children: z.array(graphChildSchema),
});
export type GraphChildrenResult = z.infer<typeof graphChildrenOutput>;

const CALENDAR_PREFIX = "Calendar";
const CALENDAR_SECTION = "calendar";

export type GraphChildrenQuery = z.output<typeof graphChildrenInput>;

/** What the caller may list in the database they asked about. */
export interface GraphChildrenAccess {
  /** The shared global database: calendar nodes only. */
  calendarOnly: boolean;
}

/**
 * The contract's access rule (docs/spec/classroom-api.md "Supporting endpoints", GET /graph/node/children): the
 * caller's personal, institute and curriculum databases (the same rule
 * as the canvas snapshots), or the shared global database for calendar node types; 403 otherwise.
 */
export function authorizeGraphChildren(ownDatabases: CallerGraphDatabases, query: GraphChildrenQuery): GraphChildrenAccess {
  if (isOwnGraphDatabase(ownDatabases, query.neo4j_db_name)) return { calendarOnly: false };
  const calendarRequest = query.node_type?.startsWith(CALENDAR_PREFIX) || query.section_id === CALENDAR_SECTION;
  if (query.neo4j_db_name !== globalGraphDatabase() || !calendarRequest) {
    throw new AppError("forbidden", "This graph database is outside your scope");
  }
  return { calendarOnly: true };
}

/** The reply for an authorised query: it depends only on the graph and on `access`, not on the caller. */
export async function readGraphChildren(db: Db, query: GraphChildrenQuery, access: GraphChildrenAccess): Promise<GraphChildrenResult> {
  const { neo4j_node_id: nodeId, neo4j_db_name: database, node_type: nodeType } = query;
  const store = graphStore(db);
  if (access.calendarOnly) {
    // The global database answers for calendar nodes only, whatever else it may hold.
    const parent = await store.getNode(database, nodeId);
    if (!parent?.node_type.startsWith(CALENDAR_PREFIX)) throw new AppError("not_found", "Graph node not found");
  }
  const children = await store.listChildren(database, nodeId, {
    nodeType,
    nodeTypePrefix: access.calendarOnly ? CALENDAR_PREFIX : undefined,
  });
  if (!children) throw new AppError("not_found", "Graph node not found");
  return {
    status: "success",
    children: children.map((child) => ({
      neo4j_node_id: child.id,
      node_type: child.node_type,
      labels: child.labels,
      relationship: child.relationship,
      has_children: child.has_children,
      properties: child.properties,
    })),
  };
}

export async function listGraphChildren(db: Db, userId: string, input: GraphChildrenInput): Promise<GraphChildrenResult> {
  const query = graphChildrenInput.parse(input);
  const ownDatabases = await asUser(db, userId, (tx) => findCallerGraphDatabases(tx, userId));
  return readGraphChildren(db, query, authorizeGraphChildren(ownDatabases, query));
}
