import { z } from "zod";
import { assignScanBody, assignScanOutput } from "./assign-scan";
import {
  batchListOutput,
  batchOutput,
  createBatchInput,
  createdBatchOutput,
  queueOutput,
  resultsOutput,
} from "./batches";
import { fileOutput } from "./files";
import { markOutput, markUpsertBody } from "./marks";
import { scanUploadOutput } from "./scans";
import {
  createTemplateInput,
  editMarkSchemeBody,
  questionOutput,
  saveTemplateBody,
  templateListOutput,
  templateOutput,
  templateStatusValues,
  templateWithCanvasOutput,
} from "./templates";
import { type OpenApiFragment, errorResponses, jsonResponse, jsonSchemaOf } from "../http/openapi-schema";

/** The /api/exam paths of the OpenAPI document, generated from the handlers' own zod schemas. */

const tags = ["exam"];
const auth = { 401: "Missing or invalid token" };
const notVisible = { 404: "Not found, or outside the caller's scope" };
const badInput = { 400: "Invalid input; detail names the field" };

const pathParam = (name: string, description: string) => ({ name, in: "path", required: true, description, schema: { type: "string", format: "uuid" } });
const queryParam = (name: string, schema: Record<string, unknown>, description: string) => ({ name, in: "query", required: false, description, schema });
const jsonBody = (schema: z.ZodType) => ({ required: true, content: { "application/json": { schema: jsonSchemaOf(schema, "input") } } });

export const examOpenApi: OpenApiFragment = {
  tags: [{ name: "exam", description: "Exam templates, batches, scans, marks, results and CSV" }],
  paths: {
    "/api/exam/templates": {
      post: {
        tags,
        operationId: "createTemplate",
        summary: "Create a template (institute rule: given must be yours, omitted uses your sole membership)",
        requestBody: jsonBody(createTemplateInput),
        responses: {
          201: jsonResponse("The template", jsonSchemaOf(templateOutput)),
          ...errorResponses({ ...badInput, ...auth, 403: "Not a member of the institute, or no membership" }),
        },
      },
      get: {
        tags,
        operationId: "listTemplates",
        summary: "Templates visible to the caller (archived ones only when asked)",
        parameters: [
          queryParam("status", { type: "string", enum: [...templateStatusValues] }, "Only this status"),
          queryParam("subject", { type: "string" }, "Only this subject (case-insensitive)"),
          queryParam("exam_code", { type: "string" }, "Only this catalogue paper code"),
          queryParam("include_archived", { type: "boolean", default: false }, "Include archived templates"),
        ],
        responses: { 200: jsonResponse("Newest changes first", jsonSchemaOf(templateListOutput)), ...errorResponses({ ...badInput, ...auth }) },
      },
    },
    "/api/exam/templates/{templateId}": {
      parameters: [pathParam("templateId", "Template id")],
      get: {
        tags,
        operationId: "getTemplate",
        summary: "One template with its whole canvas (questions flat with parent_id, in tree order)",
        responses: { 200: jsonResponse("The template and canvas", jsonSchemaOf(templateWithCanvasOutput)), ...errorResponses({ ...auth, ...notVisible }) },
      },
      put: {
        tags,
        operationId: "saveTemplate",
        summary: "Full-replace save of the canvas (questions, response_areas and boundaries together) and template-level fields",
        requestBody: jsonBody(saveTemplateBody),
        responses: {
          200: jsonResponse("The saved template and canvas", jsonSchemaOf(templateWithCanvasOutput)),
          ...errorResponses({ ...badInput, ...auth, 403: "Not the owner", ...notVisible, 409: "Marks are already recorded for a batch of this template" }),
        },
      },
      delete: {
        tags,
        operationId: "archiveTemplate",
        summary: "Soft delete: the template is archived, the row kept",
        responses: { 200: jsonResponse("The archived template", jsonSchemaOf(templateOutput)), ...errorResponses({ ...auth, 403: "Not the owner", ...notVisible }) },
      },
    },
    "/api/exam/questions/{questionId}": {
      parameters: [pathParam("questionId", "Question id")],
      patch: {
        tags,
        operationId: "editMarkScheme",
        summary: "Edit one question's mark scheme (not blocked by recorded marks)",
        requestBody: jsonBody(editMarkSchemeBody),
        responses: {
          200: jsonResponse("The question", jsonSchemaOf(questionOutput)),
          ...errorResponses({ ...badInput, ...auth, 403: "Not the template's owner", ...notVisible, 409: "max_marks below a mark already awarded" }),
        },
      },
    },
    "/api/exam/batches": {
      post: {
        tags,
        operationId: "createBatch",
        summary: "Create a batch; each active enrollee of class_id becomes an absent submission",
        requestBody: jsonBody(createBatchInput),
        responses: {
          201: jsonResponse("The batch with submission_count", jsonSchemaOf(createdBatchOutput)),
          ...errorResponses({ ...badInput, ...auth, ...notVisible, 409: "The template is archived", 500: "The batch could not be created" }),
        },
      },
      get: {
        tags,
        operationId: "listBatches",
        summary: "Batches visible to the caller, newest first",
        parameters: [
          queryParam("include_archived", { type: "boolean", default: false }, "Include archived batches"),
          queryParam("template_id", { type: "string", format: "uuid" }, "Only batches of this template"),
        ],
        responses: { 200: jsonResponse("`{batches}`", jsonSchemaOf(batchListOutput)), ...errorResponses({ ...badInput, ...auth }) },
      },
    },
    "/api/exam/batches/{batchId}/archive": {
      parameters: [pathParam("batchId", "Batch id")],
      post: {
        tags,
        operationId: "archiveBatch",
        summary: "Archive the batch (owner only; idempotent). An archived batch refuses scans and marks (409).",
        responses: { 200: jsonResponse("The archived batch", jsonSchemaOf(batchOutput)), ...errorResponses({ ...auth, 403: "Not the owner", ...notVisible }) },
      },
    },
    "/api/exam/batches/{batchId}/queue": {
      parameters: [pathParam("batchId", "Batch id")],
      get: {
        tags,
        operationId: "getQueue",
        summary: "Submissions with mark_entry_count, and progress",
        responses: { 200: jsonResponse("The marking queue", jsonSchemaOf(queueOutput)), ...errorResponses({ ...auth, ...notVisible }) },
      },
    },
    "/api/exam/batches/{batchId}/results": {
      parameters: [pathParam("batchId", "Batch id")],
      get: {
        tags,
        operationId: "getResults",
        summary: "Leaf questions in order and one result per submission (absent ones included)",
        responses: { 200: jsonResponse("The results", jsonSchemaOf(resultsOutput)), ...errorResponses({ ...auth, ...notVisible }) },
      },
    },
    "/api/exam/batches/{batchId}/csv": {
      parameters: [pathParam("batchId", "Batch id")],
      get: {
        tags,
        operationId: "getResultsCsv",
        summary: "The results as CSV: student_name, student_id, status, one column per question label, total",
        responses: {
          200: { description: "attachment batch-<id>.csv (RFC 4180, UTF-8)", content: { "text/csv": { schema: { type: "string" } } } },
          ...errorResponses({ ...auth, ...notVisible }),
        },
      },
    },
    "/api/exam/batches/{batchId}/scans": {
      parameters: [pathParam("batchId", "Batch id")],
      post: {
        tags,
        operationId: "uploadScan",
        summary: "Upload a scanned PDF (streamed) and match it to a submission",
        requestBody: {
          required: true,
          content: {
            "multipart/form-data": {
              schema: {
                type: "object",
                required: ["file"],
                properties: {
                  file: { type: "string", contentMediaType: "application/pdf", description: "The scan, application/pdf or application/x-pdf, beginning with %PDF-" },
                  student_id: { type: "string", format: "uuid", description: "For manual matching: the student whose submission gets the scan" },
                  matching_method: { type: "string", enum: ["manual", "ordered"], default: "manual" },
                },
              },
            },
          },
        },
        responses: {
          200: jsonResponse("The matched submission", jsonSchemaOf(scanUploadOutput)),
          201: jsonResponse("A new unmatched submission", jsonSchemaOf(scanUploadOutput)),
          ...errorResponses({
            ...badInput,
            ...auth,
            403: "Not the batch's owner",
            ...notVisible,
            409: "The batch is archived",
            413: "Larger than the maximum scan size",
            415: "Not a PDF by declared type or by signature",
            502: "Scan storage failed",
          }),
        },
      },
    },
    "/api/exam/files": {
      post: {
        tags,
        operationId: "uploadTemplateFile",
        summary: "Upload the PDF of a paper, for a template's source_file_id (streamed; pages counted)",
        parameters: [
          { name: "institute_id", in: "query", required: false, schema: { type: "string", format: "uuid" }, description: "Required for a member of several institutes" },
        ],
        requestBody: {
          required: true,
          content: {
            "multipart/form-data": {
              schema: {
                type: "object",
                required: ["file"],
                properties: { file: { type: "string", contentMediaType: "application/pdf", description: "The paper, a PDF beginning with %PDF-" } },
              },
            },
          },
        },
        responses: {
          201: jsonResponse("The stored file, with its page count", jsonSchemaOf(fileOutput)),
          ...errorResponses({ ...badInput, ...auth, 403: "A student, or an institute the caller is not staff of", 413: "Larger than the maximum size", 415: "Not a readable PDF" }),
        },
      },
    },
    "/api/exam/files/{fileId}": {
      parameters: [pathParam("fileId", "File id")],
      get: {
        tags,
        operationId: "downloadTemplateFile",
        summary: "The PDF of a file the caller may see",
        responses: {
          200: { description: "The PDF", content: { "application/pdf": { schema: { type: "string", contentMediaType: "application/pdf" } } } },
          ...errorResponses({ ...auth, ...notVisible }),
        },
      },
    },
    "/api/exam/submissions/{submissionId}/scan": {
      parameters: [pathParam("submissionId", "Submission id")],
      get: {
        tags,
        operationId: "downloadScan",
        summary: "The scanned PDF of a submission the caller may see",
        responses: {
          200: { description: "The PDF", content: { "application/pdf": { schema: { type: "string", contentMediaType: "application/pdf" } } } },
          ...errorResponses({ ...auth, 404: "Not found, outside the caller's scope, or no scan yet" }),
        },
      },
    },
    "/api/exam/submissions/{submissionId}/assign": {
      parameters: [pathParam("submissionId", "Id of the unmatched submission (a scan without a student)")],
      post: {
        tags,
        operationId: "assignScan",
        summary:
          "Give an unmatched scan to a student (batch owner): the scan and its marks move to the student's submission, which becomes matched (or marking/complete with marks), and the unmatched submission is deleted. A student of the school who is not on the roster gets the unmatched submission itself.",
        requestBody: jsonBody(assignScanBody),
        responses: {
          200: jsonResponse("The student's submission, with the scan", jsonSchemaOf(assignScanOutput)),
          ...errorResponses({
            400: "Invalid input, or student_id is not a student of the batch's school",
            ...auth,
            403: "Not the batch's owner",
            ...notVisible,
            409: "The batch is archived; the submission is not an unmatched scan; the student already has a scan; or both hold a mark for the same question",
          }),
        },
      },
    },
    "/api/exam/marks/{markId}": {
      parameters: [pathParam("markId", "Id of the mark entry (used when the entry is new)")],
      put: {
        tags,
        operationId: "upsertMark",
        summary: "Upsert the mark of one submission and question; batch_id comes from the submission",
        requestBody: jsonBody(markUpsertBody),
        responses: {
          200: jsonResponse("The mark entry", jsonSchemaOf(markOutput)),
          ...errorResponses({ ...badInput, ...auth, ...notVisible, 409: "The batch is archived, or the id names another mark", 500: "The mark could not be saved" }),
        },
      },
    },
  },
};
