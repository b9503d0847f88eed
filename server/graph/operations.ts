import { graphChildrenInput, graphChildrenOutput, listGraphChildren } from "./children";
import { templateIdInput } from "../exam/templates";
import { defineOperation } from "../operations/define";
import { graphChildrenCache } from "./children-cache";
import { graphSyncInput, graphSyncOutput, syncTemplateGraph } from "./projection";

/**
 * The exam knowledge graph's operations: projecting a template, browsing a node's children. Each is
 * said once here; its tRPC procedure `graph.<name>` and its REST face are derived from it
 * (server/operation-catalogue.ts).
 *
 * The projection takes `templateId` over tRPC and `{template_id}` in the REST path: two operations
 * calling the one domain function, as the people pages' `edit` beside REST's `editPerson`. The
 * children's REST face (GET /graph/node/children) answers through the reply cache (ETag, 304), by the
 * rule of ./children-cache.
 */
export const graphOperations = {
  syncTemplate: defineOperation({
    kind: "mutation",
    input: graphSyncInput,
    output: graphSyncOutput,
    // The projection opens its own transactions (the template read as the caller, then the graph written).
    transaction: "database",
    role: "signed-in",
    handler: ({ db, caller, input }) => syncTemplateGraph(db, caller.id, input.templateId),
  }),

  /** POST /api/exam/templates/{template_id}/graph-sync: `syncTemplate` with the template in the path (REST only). */
  syncTemplateGraph: defineOperation({
    kind: "mutation",
    input: templateIdInput,
    output: graphSyncOutput,
    transaction: "database",
    role: "signed-in",
    trpc: false,
    handler: ({ db, caller, input }) => syncTemplateGraph(db, caller.id, input.template_id),
    rest: {
      method: "POST",
      path: "/api/exam/templates/{template_id}/graph-sync",
      operationId: "syncTemplateGraph",
      tags: ["graph", "exam"],
      summary: "Project a template into its school's curriculum graph now",
      description:
        "Owner only. Replaces the questions, parts and regions this template projected (paper keyed by exam_code and shared by " +
        "the templates of that code, or template-<id> without one) and answers the counts. 409 when a question or area id " +
        "is part of another template's projection.",
      reply: "OK",
      errors: {
        403: "Not the owner",
        404: "Not found, or outside the caller's scope",
        409: "A question or area id is part of another template's projection",
        500: "The projection could not be written",
      },
    },
  }),

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
