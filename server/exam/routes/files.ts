import { defineRoute, errorMeaning, fileReply, jsonReply, replyWith, streamedBody } from "../../http/route";
import { fileIdInput, fileOutput, openFile, uploadFileQuery, uploadTemplateFile } from "../files";

/** The PDF of an exam paper, uploaded for a template's source_file_id. */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;

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

export const downloadTemplateFileRoute = defineRoute({
  method: "GET",
  path: "/api/exam/files/{file_id}",
  operationId: "downloadTemplateFile",
  tags,
  summary: "The PDF of a file the caller may see",
  auth: "bearer",
  params: fileIdInput,
  replies: { 200: fileReply("application/pdf", "The PDF", { type: "string", contentMediaType: "application/pdf" }) },
  errors: { 404: notVisible },
  handler: async ({ db, user, params }) => {
    const { file, body } = await openFile(db, user.id, params.file_id);
    const name = (file.original_name ?? `${file.id}.pdf`).replace(/[^\w. -]/g, "_");
    return new Response(body, {
      headers: {
        "content-type": file.content_type,
        "content-length": String(file.byte_size),
        "content-disposition": `inline; filename="${name}"`,
        // The bytes behind an id never change; only the signed-in user may hold them.
        "cache-control": "private, max-age=3600",
        "x-content-type-options": "nosniff",
      },
    });
  },
});

export const fileRoutes = [uploadTemplateFileRoute, downloadTemplateFileRoute];
