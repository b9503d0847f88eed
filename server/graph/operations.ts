import { graphChildrenInput, graphChildrenOutput, listGraphChildren } from "./children";
import { defineOperation } from "../operations/define";
import { graphChildrenCache } from "./children-cache";

/**
 * The graph's own operation: browsing a node's children (`graph.children`; its REST face GET
 * /graph/node/children answers through the reply cache, ETag and 304, by the rule of ./children-cache).
 * Projecting an exam template into the graph is the exam wing's (server/exam/graph-operations.ts): it
 * takes the template's id, so the graph imports nothing of exam; the catalogue lists both under `graph`.
 */
export const graphOperations = {
  children: defineOperation({
    kind: "query",
    input: graphChildrenInput,
    output: graphChildrenOutput,
    // Access is judged as the caller inside the domain function; the graph is read outside any transaction.
    transaction: "database",
    role: "signed-in",
    handler: ({ db, caller, input }) => listGraphChildren(db, caller.id, input),
    rest: {
      method: "GET",
      path: "/graph/node/children",
      operationId: "listGraphChildren",
      tags: ["graph", "classroom"],
      summary: "Children of one graph node, for lazy tree views",
      description:
        "Ordered by the children's numeric `order` property, then by id. Each child: neo4j_node_id, node_type, labels, " +
        "relationship (from the parent), has_children, properties.",
      reply: "OK",
      // Through the reply cache (ETag, 304): the access rule is judged for every caller, the children shared.
      cache: ({ db, caller, input }) => graphChildrenCache(db, caller.id, input),
      errors: { 400: "Invalid request (see detail)", 403: "Outside the caller's scope", 404: "Not found, or outside the caller's scope" },
    },
  }),
};
