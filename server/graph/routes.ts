import { graphChildrenInput, graphChildrenOutput } from "../classroom/graph-children";
import { graphChildrenReply } from "../classroom/reply-cache";
import { cachedJsonReply, defineRoute } from "../http/route";

/**
 * The knowledge graph's hand-written REST route: lazy child lookup, answered through the reply cache
 * (ETag, 304), which an operation's REST face does not say yet. The projection's route is an operation
 * (server/graph/operations.ts).
 */

export const graphChildrenRoute = defineRoute({
  method: "GET",
  path: "/graph/node/children",
  operationId: "listGraphChildren",
  tags: ["graph", "classroom"],
  summary: "Children of one graph node, for lazy tree views",
  description:
    "Ordered by the children's numeric `order` property, then by id. Each child: neo4j_node_id, node_type, labels, " +
    "relationship (from the parent), has_children, properties.",
  auth: "bearer",
  query: graphChildrenInput,
  replies: { 200: cachedJsonReply(graphChildrenOutput, "OK") },
  errors: { 400: "Invalid request (see detail)", 403: "Outside the caller's scope", 404: "Not found, or outside the caller's scope" },
  handler: ({ request, db, user, query }) => graphChildrenReply(request, db, user.id, query),
});

export const graphTag = { name: "graph", description: "The knowledge graph: template projection and lazy child lookup" };
