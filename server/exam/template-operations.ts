import { queryBoolean } from "../../lib/rules/input-rules";
import { getTemplateGraphStatus, retryTemplateGraphProjection, templateGraphStatusOutput } from "../graph/projection-status";
import { errorMeaning } from "../http/route";
import { defineOperation } from "../operations/define";
import {
  archiveTemplate,
  createTemplate,
  createTemplateInput,
  getTemplate,
  listTemplates,
  listTemplatesInput,
  saveTemplate,
  saveTemplateInput,
  templateIdInput,
  templateListOutput,
  templateOutput,
  templateWithCanvasOutput,
} from "./templates";
import { proposeFromPaper, proposeTemplateOutput } from "./template-proposal";
import { findTemplateTickBoxes, findTickBoxesInput, findTickBoxesOutput } from "./tick-box-layout";

/**
 * Exam templates (`exam.templates.<name>` over tRPC; REST under /api/exam/templates). Listed in the
 * order the OpenAPI document lists their REST faces. Every write is the owner's (the domain functions
 * and row-level security decide): another school's template is not found, whoever asks.
 */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;

/** REST's list takes its filters from the query string, so include_archived is "true"/"false" there. */
const listTemplatesQuery = listTemplatesInput.extend({ include_archived: queryBoolean.default(false).meta({ description: "Include archived templates" }) });

export const templateOperations = {
  create: defineOperation({
    kind: "mutation",
    input: createTemplateInput,
    output: templateOutput,
    // createTemplate opens its own transaction (and enqueues the graph projection after it).
    transaction: "database",
    role: "staff",
    handler: ({ db, caller, input }) => createTemplate(db, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/templates",
      operationId: "createTemplate",
      tags,
      summary: "Create a template (institute rule: given must be yours, omitted uses your sole membership)",
      status: 201,
      reply: "The template",
      errors: { 400: invalid, 403: "Not a member of the institute, or no membership" },
    },
  }),

  /** tRPC's list: include_archived is a boolean, and the filters may be left out. */
  list: defineOperation({
    kind: "query",
    input: listTemplatesInput.optional(),
    output: templateListOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: async ({ tx, input }) => ({ templates: await listTemplates(tx, input ?? {}) }),
  }),

  /** REST's list (GET /api/exam/templates): the same domain function, its filters from the query string. */
  listByQuery: defineOperation({
    kind: "query",
    input: listTemplatesQuery,
    output: templateListOutput,
    transaction: "as-user",
    role: "signed-in",
    trpc: false,
    handler: async ({ tx, input }) => ({ templates: await listTemplates(tx, input) }),
    rest: {
      method: "GET",
      path: "/api/exam/templates",
      operationId: "listTemplates",
      tags,
      summary: "Templates visible to the caller (archived ones only when asked)",
      reply: "Newest changes first",
      errors: { 400: invalid },
    },
  }),

  get: defineOperation({
    kind: "query",
    input: templateIdInput,
    output: templateWithCanvasOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, input }) => getTemplate(tx, input.template_id),
    rest: {
      method: "GET",
      path: "/api/exam/templates/{template_id}",
      operationId: "getTemplate",
      tags,
      summary: "One template with its whole canvas (questions flat with parent_id, in tree order)",
      reply: "The template and canvas",
      errors: { 404: notVisible },
    },
  }),

  save: defineOperation({
    kind: "mutation",
    // REST's body is the input's `body`, parsed at the edge so that a refusal names the field as this client sent it (`questions.1.label`).
    input: saveTemplateInput,
    output: templateWithCanvasOutput,
    // saveTemplate opens its own transaction (and enqueues the graph projection after it).
    transaction: "database",
    role: "signed-in",
    handler: ({ db, caller, input }) => saveTemplate(db, caller.id, input),
    rest: {
      method: "PUT",
      path: "/api/exam/templates/{template_id}",
      operationId: "saveTemplate",
      tags,
      summary: "Full-replace save of the canvas (questions, response_areas and boundaries together) and template-level fields",
      bodyMember: "body",
      reply: "The saved template and canvas",
      errors: { 400: invalid, 403: "Not the owner", 404: notVisible, 409: "Marks are already recorded for a batch of this template" },
    },
  }),

  archive: defineOperation({
    kind: "mutation",
    input: templateIdInput,
    output: templateOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => archiveTemplate(tx, caller.id, input.template_id),
    rest: {
      method: "DELETE",
      path: "/api/exam/templates/{template_id}",
      operationId: "archiveTemplate",
      tags,
      summary: "Soft delete: the template is archived, the row kept",
      reply: "The archived template",
      errors: { 403: "Not the owner", 404: notVisible },
    },
  }),

  /** The owner's view of the template's graph projection (the background job after a save). */
  graphStatus: defineOperation({
    kind: "query",
    input: templateIdInput,
    output: templateGraphStatusOutput,
    // getTemplateGraphStatus and retryTemplateGraphProjection open their own transaction as the caller.
    transaction: "database",
    role: "signed-in",
    handler: ({ db, caller, input }) => getTemplateGraphStatus(db, caller.id, input.template_id),
  }),

  retryGraph: defineOperation({
    kind: "mutation",
    input: templateIdInput,
    output: templateGraphStatusOutput,
    transaction: "database",
    role: "signed-in",
    handler: ({ db, caller, input }) => retryTemplateGraphProjection(db, caller.id, input.template_id),
  }),

  /** "Read the paper": the template proposed from its own paper, for the editor to draw and the teacher to check (nothing stored). */
  propose: defineOperation({
    kind: "mutation",
    input: templateIdInput,
    output: proposeTemplateOutput,
    // Reads the template as the caller (the owner's), then the paper from storage and its content in the imaging worker, after it.
    transaction: "database",
    role: "signed-in",
    handler: ({ db, caller, input }) => proposeFromPaper(db, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/templates/{template_id}/proposal",
      operationId: "proposeTemplate",
      tags,
      summary:
        "Read the template's paper and propose its questions, parts, maximum marks, answer areas, tick boxes and name box, each with how sure the reading is, and the warnings; nothing is stored (the owner's; a Ready or archived template is refused)",
      reply: "The proposal as the canvas would hold it (new ids), with each question's confidence and the warnings as sentences",
      errors: {
        400: "The paper's PDF cannot be read, or is larger than a paper may be; detail says why",
        403: "Not the owner",
        404: notVisible,
        409: "The template is Ready or archived, or has no paper PDF, or it is missing from storage",
        502: "The paper could not be read from storage",
      },
    },
  }),

  /** "Find boxes": the tick boxes printed in a rectangle of the paper (nothing stored; the canvas save keeps them). */
  findTickBoxes: defineOperation({
    kind: "mutation",
    input: findTickBoxesInput,
    output: findTickBoxesOutput,
    // Reads the template as the caller, then the paper from storage and its pixels in the imaging worker, after it.
    transaction: "database",
    role: "signed-in",
    handler: ({ db, caller, input }) => findTemplateTickBoxes(db, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/templates/{template_id}/tick-boxes/find",
      operationId: "findTemplateTickBoxes",
      tags,
      summary: "Find the tick boxes printed inside a rectangle of one page of the template's paper (square and round outlines, labelled A, B, C … in reading order); nothing is stored",
      bodyMember: "body",
      example: '{"page": 2, "x": 0.1, "y": 0.2, "width": 0.6, "height": 0.15}',
      reply: "The boxes found, page-relative",
      errors: {
        400: invalid,
        404: notVisible,
        409: "The template has no paper PDF, or it is missing from storage",
        502: "The paper could not be read from storage",
      },
    },
  }),
};
