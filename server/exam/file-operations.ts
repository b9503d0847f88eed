import { errorMeaning, fileReply } from "../http/route";
import { defineOperation } from "../operations/define";
import { fileIdInput, openFile } from "./files";

/**
 * The PDF of an exam paper, read back (REST only: the editor's viewer and tools fetch the bytes). Its
 * upload, POST /api/exam/files, stays a hand-written route (server/exam/routes/files.ts): its body is streamed.
 */
export const examFileOperations = {
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
