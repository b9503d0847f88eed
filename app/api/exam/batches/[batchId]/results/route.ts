import { asUser } from "@/server/db/rls";
import { getResults, resultsOutput } from "@/server/exam/batches";
import { pathId } from "@/server/exam/http-input";
import { restRoute } from "@/server/http/rest";
import { validatedReply } from "@/server/http/validated-reply";

export const dynamic = "force-dynamic";

/** GET /api/exam/batches/{id}/results: questions in order and one result per submission. */
export const GET = restRoute<{ batchId: string }>(async ({ db, user, params }) => {
  const batchId = pathId(params.batchId, "Batch");
  return validatedReply(resultsOutput, await asUser(db, user.id, (tx) => getResults(tx, batchId)), "GET /api/exam/batches/{batchId}/results");
});
