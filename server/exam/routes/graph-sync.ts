import { graphSyncOutput, syncTemplateGraph } from "../../graph/projection";
import { defineRoute, jsonReply } from "../../http/route";
import { templateIdInput } from "../templates";

/** POST /api/exam/templates/{template_id}/graph-sync: a template's projection into its school's curriculum graph. */
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
