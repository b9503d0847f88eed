import { defineRoute, errorMeaning, jsonReply, replyWith, streamedBody } from "../../http/route";
import { fileOutput, uploadFileQuery, uploadTemplateFile } from "../files";

/** The PDF of an exam paper, uploaded for a template's source_file_id (streamed; its download is an operation: server/exam/file-operations.ts). */

const tags = ["exam"];
const { invalid } = errorMeaning;

export const uploadTemplateFileRoute = defineRoute({
  method: "POST",
  path: "/api/exam/files",
  operationId: "uploadTemplateFile",
  tags,
  summary: "Upload the PDF of a paper, for a template's source_file_id (streamed; pages counted)",
  auth: "bearer",
  query: uploadFileQuery,
  body: streamedBody("multipart/form-data", {
    type: "object",
    required: ["file"],
    properties: { file: { type: "string", contentMediaType: "application/pdf", description: "The paper, a PDF beginning with %PDF-" } },
  }),
  replies: { 201: jsonReply(fileOutput, "The stored file, with its page count") },
  errors: { 400: invalid, 403: "A student, or an institute the caller is not staff of", 413: "Larger than the maximum size", 415: "Not a readable PDF" },
  handler: async ({ db, user, query, body }) => replyWith(201, await uploadTemplateFile(db, user.id, { ...body, instituteId: query.institute_id })),
});

export const fileRoutes = [uploadTemplateFileRoute];
