import { asUser } from "@/server/db/rls";
import { assignScan, assignScanBody, assignScanOutput } from "@/server/exam/assign-scan";
import { pathId } from "@/server/exam/http-input";
import { readJsonBody } from "@/server/http/request-body";
import { restRoute } from "@/server/http/rest";
import { validatedReply } from "@/server/http/validated-reply";

export const dynamic = "force-dynamic";

/** POST /api/exam/submissions/{id}/assign: the batch owner gives an unmatched scan (and its marks) to a student. */
export const POST = restRoute<{ submissionId: string }>(async ({ db, user, params, request }) => {
  const submissionId = pathId(params.submissionId, "Submission");
  const body = assignScanBody.parse(await readJsonBody(request));
  return validatedReply(assignScanOutput, await asUser(db, user.id, (tx) => assignScan(tx, user.id, { submission_id: submissionId, ...body })), "POST /api/exam/submissions/{submissionId}/assign");
});
