import { pathId } from "@/server/exam/http-input";
import { scanUploadOutput, uploadScan } from "@/server/exam/scans";
import { restRoute } from "@/server/http/rest";
import { validatedReply } from "@/server/http/validated-reply";

export const dynamic = "force-dynamic";

/**
 * POST /api/exam/batches/{id}/scans: multipart/form-data with file (a PDF), student_id and
 * matching_method (manual by default, or ordered). The body is streamed, never buffered whole.
 * 200 with the matched submission, 201 with a new unmatched one.
 */
export const POST = restRoute<{ batchId: string }>(async ({ db, user, params, request }) => {
  const batchId = pathId(params.batchId, "Batch");
  const length = request.headers.get("content-length");
  const { submission, created } = await uploadScan(db, user.id, batchId, {
    contentType: request.headers.get("content-type"),
    contentLength: length && /^\d+$/.test(length) ? Number(length) : null,
    body: request.body,
  });
  return Response.json(validatedReply(scanUploadOutput, submission, "POST /api/exam/batches/{batchId}/scans"), { status: created ? 201 : 200 });
});
