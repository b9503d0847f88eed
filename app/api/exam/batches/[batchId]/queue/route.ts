import { asUser } from "@/server/db/rls";
import { getQueue, queueOutput } from "@/server/exam/batches";
import { pathId } from "@/server/exam/http-input";
import { restRoute } from "@/server/http/rest";
import { validatedReply } from "@/server/http/validated-reply";

export const dynamic = "force-dynamic";

/** GET /api/exam/batches/{id}/queue: submissions with their mark counts, and progress. */
export const GET = restRoute<{ batchId: string }>(async ({ db, user, params }) => {
  const batchId = pathId(params.batchId, "Batch");
  return validatedReply(queueOutput, await asUser(db, user.id, (tx) => getQueue(tx, batchId)), "GET /api/exam/batches/{batchId}/queue");
});
