import { pathId } from "@/server/exam/http-input";
import { openSubmissionScan } from "@/server/exam/scan-files";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

/** GET /api/exam/submissions/{id}/scan: the submission's scanned PDF, streamed; 404 outside the caller's scope. */
export const GET = restRoute<{ submissionId: string }>(async ({ db, user, params }) => {
  const scan = await openSubmissionScan(db, user.id, pathId(params.submissionId, "Submission"));
  return new Response(scan.body, {
    headers: {
      "content-type": scan.contentType,
      "content-length": String(scan.byteSize),
      "content-disposition": "inline",
      // A submission's scan can be replaced by a later upload: the browser may keep it briefly only.
      "cache-control": "private, max-age=60",
      "x-content-type-options": "nosniff",
    },
  });
});
