import { errorMeaning } from "../../http/route";
import { defineOperation } from "../../operations/define";
import {
  applySchemeInput,
  applySchemeItems,
  applySchemeOutput,
  copyFromTemplate,
  copyPreviewOutput,
  copyResultOutput,
  copyTemplateInput,
  previewCopy,
  proposeFromText,
  proposeFromTextInput,
  schemeProposalOutput,
} from "./mark-scheme";

/**
 * A mark scheme read into a template's rubric (`exam.rubric.readScheme`, `applyScheme`), and a template's
 * structure and rubric copied from another paper of the school (`exam.templates.previewCopy`, `copyFrom`)
 * (issue 37, items 3 and 4). Reading and previewing write nothing; applying and copying are the template
 * owner's, all or nothing.
 */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;
const notOwner = "Not the template's owner";

export const markSchemeOperations = {
  readScheme: defineOperation({
    kind: "mutation",
    input: proposeFromTextInput,
    output: schemeProposalOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, input }) => proposeFromText(tx, input),
    rest: {
      method: "POST",
      path: "/api/exam/templates/{template_id}/mark-scheme/read",
      operationId: "readMarkScheme",
      tags,
      summary: "Propose rubric items for a template's parts from a mark scheme's text (M1, A1, B2, \"1 mark for …\", \"(1)\"), matched by label; nothing is stored",
      example: '{"text": "1 | 24 | B1\\n2 | M1 for 2x = 6\\n  | A1 x = 3"}',
      maxBytes: 1_000_000,
      reply: "Per part its proposed items, and the disagreements said",
      errors: { 400: invalid, 404: notVisible, 413: "Longer than a mark scheme may be" },
    },
  }),

  applyScheme: defineOperation({
    kind: "mutation",
    input: applySchemeInput,
    output: applySchemeOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => applySchemeItems(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/templates/{template_id}/mark-scheme/apply",
      operationId: "applyMarkScheme",
      tags,
      summary: "Add the accepted rubric items to the template's parts, all or nothing; an item a part already has is not added twice",
      bodyMember: "body",
      status: 201,
      reply: "The items created, and how many were there already",
      errors: { 400: invalid, 403: notOwner, 404: notVisible, 409: "The template is archived" },
    },
  }),
};

export const copyTemplateOperations = {
  previewCopy: defineOperation({
    kind: "query",
    input: copyTemplateInput,
    output: copyPreviewOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, input }) => previewCopy(tx, input),
    rest: {
      method: "GET",
      path: "/api/exam/templates/{template_id}/copy-from/{source_template_id}",
      operationId: "previewTemplateCopy",
      tags,
      summary: "What copying another template of the school into this one would do: its questions matched by label; nothing is stored",
      reply: "The matches, the labels of either side left alone, and the warnings",
      errors: { 400: invalid, 404: notVisible },
    },
  }),

  copyFrom: defineOperation({
    kind: "mutation",
    input: copyTemplateInput,
    output: copyResultOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => copyFromTemplate(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/templates/{template_id}/copy-from/{source_template_id}",
      operationId: "copyTemplateFrom",
      tags,
      summary:
        "Copy another template's maximum marks, answer types, mark schemes and rubric items into this one's questions of the same label, all or nothing; unmatched questions and answer areas stay as they are",
      reply: "What was copied",
      errors: { 400: invalid, 403: notOwner, 404: notVisible, 409: "The template is archived, or a maximum would fall below a mark already awarded" },
    },
  }),
};
