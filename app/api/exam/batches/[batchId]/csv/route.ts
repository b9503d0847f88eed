import { asUser } from "@/server/db/rls";
import { getResults } from "@/server/exam/batches";
import { pathId } from "@/server/exam/http-input";
import { renderResultsCsv, resultsCsvFileName } from "@/server/exam/results-csv";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

/** GET /api/exam/batches/{id}/csv: the results as a UTF-8 CSV attachment batch-<id>.csv. */
export const GET = restRoute<{ batchId: string }>(async ({ db, user, params }) => {
  const batchId = pathId(params.batchId, "Batch");
  const results = await asUser(db, user.id, (tx) => getResults(tx, batchId));
  return new Response(renderResultsCsv(results), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${resultsCsvFileName(batchId)}"`,
      "cache-control": "no-store",
    },
  });
});
