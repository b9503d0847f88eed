import { errorMeaning, streamedBody } from "../../http/route";
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
  proposeFromPdf,
  proposeFromText,
  templateIdOnly,
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

  readSchemePdf: defineOperation({
    kind: "mutation",
    input: templateIdOnly,
    output: schemeProposalOutput,
    // Judges the template as the caller, reads the PDF in the imaging worker after it, then matches as the caller again.
    transaction: "database",
    role: "signed-in",
    trpc: false,
    handler: ({ db, caller, input, upload }) => proposeFromPdf(db, caller.id, input, upload),
    rest: {
      method: "POST",
      path: "/api/exam/templates/{template_id}/mark-scheme/read-pdf",
      operationId: "readMarkSchemePdf",
      tags,
      summary: "Propose rubric items for a template's parts from a mark scheme's PDF (its text layer: the usual Question | Answer | Marks | Guidance table), matched by label; nothing is stored",
      streamedBody: streamedBody("multipart/form-data", {
        type: "object",
        required: ["file"],
        properties: { file: { type: "string", contentMediaType: "application/pdf", description: "The mark scheme, a PDF with text (not a scan)" } },
      }),
      reply: "Per part its proposed items, and the disagreements said",
      errors: { 400: invalid, 404: notVisible, 413: "Larger than the maximum size", 415: "Not a PDF" },
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
