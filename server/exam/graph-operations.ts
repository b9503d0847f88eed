import { defineOperation } from "../operations/define";
import { graphSyncInput, graphSyncOutput, syncTemplateGraph } from "../graph/projection";
import { templateIdInput } from "./templates";

/**
 * Projecting a template into its school's curriculum graph (`graph.syncTemplate` over tRPC; the catalogue
 * lists these under `graph`, beside the graph's own operations: server/operation-catalogue.ts). Here in the
 * exam wing because the input is an exam template's id: the graph below imports nothing of exam.
 *
 * The projection takes `templateId` over tRPC and `{template_id}` in the REST path: two operations
 * calling the one domain function, as the people pages' `edit` beside REST's `editPerson`.
 */
export const templateGraphOperations = {
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

};
