import { uploadTemplateFile } from "@/server/exam/files";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

/**
 * POST /api/exam/files: multipart/form-data with `file`, an exam paper PDF for a template (checked as
 * scans are). Optional query institute_id. 201 with {id, page_count, original_name, byte_size, …};
 * the template then refers to it by source_file_id.
 */
export const POST = restRoute(async ({ db, user, request, url }) => {
  const length = request.headers.get("content-length");
  const file = await uploadTemplateFile(db, user.id, {
    contentType: request.headers.get("content-type"),
    contentLength: length && /^\d+$/.test(length) ? Number(length) : null,
    body: request.body,
    instituteId: url.searchParams.get("institute_id") ?? undefined,
  });
  return Response.json(file, { status: 201 });
});
