import { errorMeaning, fileReply, streamedBody } from "../http/route";
import { defineOperation } from "../operations/define";
import { fileIdInput, fileOutput, openFile, uploadFileQuery, uploadTemplateFile } from "./files";

/**
 * The PDF of an exam paper, uploaded for a template's source_file_id (its body streamed) and read back
 * (REST only: the editor's viewer and tools send and fetch the bytes).
 */
export const examFileOperations = {
  upload: defineOperation({
    kind: "mutation",
    input: uploadFileQuery,
    output: fileOutput,
    // uploadTemplateFile judges the institute as the caller, streams the file to the object store, then records it.
    transaction: "database",
    role: "staff",
    trpc: false,
    handler: ({ db, caller, input, upload }) => uploadTemplateFile(db, caller.id, { ...upload, instituteId: input.institute_id }),
    rest: {
      method: "POST",
      path: "/api/exam/files",
      operationId: "uploadTemplateFile",
      tags: ["exam"],
      summary: "Upload the PDF of a paper, for a template's source_file_id (streamed; pages counted)",
      streamedBody: streamedBody("multipart/form-data", {
        type: "object",
        required: ["file"],
        properties: { file: { type: "string", contentMediaType: "application/pdf", description: "The paper, a PDF beginning with %PDF-" } },
      }),
      status: 201,
      reply: "The stored file, with its page count",
      errors: { 400: errorMeaning.invalid, 403: "A student, or an institute the caller is not staff of", 413: "Larger than the maximum size", 415: "Not a readable PDF" },
    },
  }),

  download: defineOperation({
    kind: "query",
    input: fileIdInput,
    // openFile judges the file in a transaction of its own as the caller, then reads the object store after it.
    transaction: "database",
    role: "signed-in",
    trpc: false,
    handler: ({ db, caller, input }) => openFile(db, caller.id, input.file_id),
    rest: {
      method: "GET",
      path: "/api/exam/files/{file_id}",
      operationId: "downloadTemplateFile",
      tags: ["exam"],
      summary: "The PDF of a paper the caller may see (never a scan: the scan routes serve those)",
      file: fileReply("application/pdf", "The PDF", { type: "string", contentMediaType: "application/pdf" }),
      respond: ({ file, body }) => {
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
      errors: { 404: errorMeaning.notVisible },
    },
  }),
};
