import { graphChildrenInput, graphChildrenOutput } from "../../graph/children";
import { graphChildrenReply } from "../reply-cache";
import { cachedJsonReply, defineRoute } from "../../http/route";

/** GET /graph/node/children: the graph's lazy child lookup, served through the classroom reply cache. */
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
