import { asUser } from "@/server/db/rls";
import { archiveBatch, batchOutput } from "@/server/exam/batches";
import { pathId } from "@/server/exam/http-input";
import { restRoute } from "@/server/http/rest";
import { validatedReply } from "@/server/http/validated-reply";

export const dynamic = "force-dynamic";

/** POST /api/exam/batches/{id}/archive: the owner archives the batch (idempotent). */
export const POST = restRoute<{ batchId: string }>(async ({ db, user, params }) => {
  const batchId = pathId(params.batchId, "Batch");
  return validatedReply(batchOutput, await asUser(db, user.id, (tx) => archiveBatch(tx, user.id, batchId)), "POST /api/exam/batches/{batchId}/archive");
});
