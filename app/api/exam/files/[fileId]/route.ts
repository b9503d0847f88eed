import { openFile } from "@/server/exam/files";
import { pathId } from "@/server/exam/http-input";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

/** GET /api/exam/files/{id}: the PDF's bytes, streamed; 404 when the caller may not read it. */
export const GET = restRoute<{ fileId: string }>(async ({ db, user, params }) => {
  const { file, body } = await openFile(db, user.id, pathId(params.fileId, "File"));
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
});
