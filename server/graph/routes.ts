import { graphChildrenInput, graphChildrenOutput } from "./children";
import { graphChildrenReply } from "../classroom/reply-cache";
import { templateIdInput } from "../exam/templates";
import { cachedJsonReply, defineRoute, jsonReply } from "../http/route";
import { graphSyncOutput, syncTemplateGraph } from "./projection";

/** The knowledge graph's REST routes: a template's projection, and lazy child lookup. */

export const graphSyncRoute = defineRoute({
  method: "POST",
  path: "/api/exam/templates/{template_id}/graph-sync",
  operationId: "syncTemplateGraph",
  tags: ["graph", "exam"],
  summary: "Project a template into its school's curriculum graph now",
  description:
    "Owner only. Replaces the questions, parts and regions this template projected (paper keyed by exam_code and shared by " +
    "the templates of that code, or template-<id> without one) and answers the counts. 409 when a question or area id " +
    "is part of another template's projection.",
  auth: "bearer",
  params: templateIdInput,
  replies: { 200: jsonReply(graphSyncOutput, "OK") },
  errors: {
    403: "Not the owner",
    404: "Not found, or outside the caller's scope",
    409: "A question or area id is part of another template's projection",
    500: "The projection could not be written",
  },
  handler: ({ db, user, params }) => syncTemplateGraph(db, user.id, params.template_id),
});

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

export const graphRoutes = [graphSyncRoute, graphChildrenRoute];

export const graphTag = { name: "graph", description: "The knowledge graph: template projection and lazy child lookup" };
