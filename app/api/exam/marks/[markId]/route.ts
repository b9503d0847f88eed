import { pathId } from "@/server/exam/http-input";
import { readJsonBody } from "@/server/http/request-body";
import { saveMark } from "@/server/exam/mark-writer";
import { markOutput, markUpsertBody } from "@/server/exam/marks";
import { restRoute } from "@/server/http/rest";
import { validatedReply } from "@/server/http/validated-reply";

export const dynamic = "force-dynamic";

/** PUT /api/exam/marks/{id}: upsert the mark of one submission and question. */
export const PUT = restRoute<{ markId: string }>(async ({ db, user, params, request }) => {
  const markId = pathId(params.markId, "Mark");
  const body = markUpsertBody.parse(await readJsonBody(request));
  return validatedReply(markOutput, await saveMark(db, user.id, { mark_id: markId, body }), "PUT /api/exam/marks/{markId}");
});
