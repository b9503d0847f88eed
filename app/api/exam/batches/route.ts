import { asUser } from "@/server/db/rls";
import { batchListOutput, createBatch, createBatchInput, createdBatchOutput, listBatches, listBatchesInput } from "@/server/exam/batches";
import { queryObject } from "@/server/exam/http-input";
import { queryBoolean } from "@/server/http/input-rules";
import { readJsonBody } from "@/server/http/request-body";
import { restRoute } from "@/server/http/rest";
import { validatedReply } from "@/server/http/validated-reply";

export const dynamic = "force-dynamic";

/** POST /api/exam/batches: a batch of the template, with one absent submission per active enrollee of class_id. */
export const POST = restRoute(async ({ db, user, request }) => {
  const body = createBatchInput.parse(await readJsonBody(request));
  return Response.json(validatedReply(createdBatchOutput, await createBatch(db, user.id, body), "POST /api/exam/batches"), { status: 201 });
});

const listQuery = listBatchesInput.extend({ include_archived: queryBoolean });

/** GET /api/exam/batches: `{batches}` newest first; archived ones only with include_archived. */
export const GET = restRoute(async ({ db, user, url }) => {
  const filters = listQuery.parse(queryObject(url));
  const batches = await asUser(db, user.id, (tx) => listBatches(tx, { ...filters, include_archived: filters.include_archived ?? false }));
  return validatedReply(batchListOutput, { batches }, "GET /api/exam/batches");
});
