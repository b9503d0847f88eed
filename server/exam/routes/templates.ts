import { asUser } from "../../db/rls";
import { queryBoolean } from "../../../lib/rules/input-rules";
import { defineRoute, errorMeaning, jsonBody, jsonReply, recordPath, replyWith } from "../../http/route";
import {
  archiveTemplate,
  createTemplate,
  createTemplateInput,
  editMarkScheme,
  editMarkSchemeBody,
  getTemplate,
  listTemplates,
  listTemplatesInput,
  questionOutput,
  saveTemplate,
  saveTemplateBody,
  templateIdInput,
  templateListOutput,
  templateOutput,
  templateWithCanvasOutput,
} from "../templates";

/** Exam templates and their questions' mark schemes. */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;

export const createTemplateRoute = defineRoute({
  method: "POST",
  path: "/api/exam/templates",
  operationId: "createTemplate",
  tags,
  summary: "Create a template (institute rule: given must be yours, omitted uses your sole membership)",
  auth: "bearer",
  body: jsonBody(createTemplateInput),
  replies: { 201: jsonReply(templateOutput, "The template") },
  errors: { 400: invalid, 403: "Not a member of the institute, or no membership" },
  handler: async ({ db, user, body }) => replyWith(201, await createTemplate(db, user.id, body)),
});

export const listTemplatesRoute = defineRoute({
  method: "GET",
  path: "/api/exam/templates",
  operationId: "listTemplates",
  tags,
  summary: "Templates visible to the caller (archived ones only when asked)",
  auth: "bearer",
  query: listTemplatesInput.extend({ include_archived: queryBoolean.default(false).meta({ description: "Include archived templates" }) }),
  replies: { 200: jsonReply(templateListOutput, "Newest changes first") },
  errors: { 400: invalid },
  handler: async ({ db, user, query }) => {
    const templates = await asUser(db, user.id, (tx) => listTemplates(tx, query));
    return { templates };
  },
});

export const getTemplateRoute = defineRoute({
  method: "GET",
  path: "/api/exam/templates/{template_id}",
  operationId: "getTemplate",
  tags,
  summary: "One template with its whole canvas (questions flat with parent_id, in tree order)",
  auth: "bearer",
  params: templateIdInput,
  replies: { 200: jsonReply(templateWithCanvasOutput, "The template and canvas") },
  errors: { 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => getTemplate(tx, params.template_id)),
});

export const saveTemplateRoute = defineRoute({
  method: "PUT",
  path: "/api/exam/templates/{template_id}",
  operationId: "saveTemplate",
  tags,
  summary: "Full-replace save of the canvas (questions, response_areas and boundaries together) and template-level fields",
  auth: "bearer",
  params: templateIdInput,
  // Parsed at the edge so that a refusal names the field as this client sent it (`questions.1.label`).
  body: jsonBody(saveTemplateBody),
  replies: { 200: jsonReply(templateWithCanvasOutput, "The saved template and canvas") },
  errors: { 400: invalid, 403: "Not the owner", 404: notVisible, 409: "Marks are already recorded for a batch of this template" },
  handler: ({ db, user, params, body }) => saveTemplate(db, user.id, { template_id: params.template_id, body }),
});

export const archiveTemplateRoute = defineRoute({
  method: "DELETE",
  path: "/api/exam/templates/{template_id}",
  operationId: "archiveTemplate",
  tags,
  summary: "Soft delete: the template is archived, the row kept",
  auth: "bearer",
  params: templateIdInput,
  replies: { 200: jsonReply(templateOutput, "The archived template") },
  errors: { 403: "Not the owner", 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => archiveTemplate(tx, user.id, params.template_id)),
});

export const editMarkSchemeRoute = defineRoute({
  method: "PATCH",
  path: "/api/exam/questions/{question_id}",
  operationId: "editMarkScheme",
  tags,
  summary: "Edit one question's mark scheme (not blocked by recorded marks)",
  auth: "bearer",
  params: recordPath("question_id", "Question"),
  // Parsed at the edge so that a refusal names the field as this client sent it (`mark_scheme.points.0`).
  body: jsonBody(editMarkSchemeBody),
  replies: { 200: jsonReply(questionOutput, "The question") },
  errors: { 400: invalid, 403: "Not the template's owner", 404: notVisible, 409: "max_marks below a mark already awarded" },
  handler: ({ db, user, params, body }) => asUser(db, user.id, (tx) => editMarkScheme(tx, user.id, { question_id: params.question_id, body })),
});

export const templateRoutes = [createTemplateRoute, listTemplatesRoute, getTemplateRoute, saveTemplateRoute, archiveTemplateRoute, editMarkSchemeRoute];
