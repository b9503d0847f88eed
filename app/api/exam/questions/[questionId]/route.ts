import { asUser } from "@/server/db/rls";
import { pathId } from "@/server/exam/http-input";
import { readJsonBody } from "@/server/http/request-body";
import { editMarkScheme, questionOutput } from "@/server/exam/templates";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

/** PATCH /api/exam/questions/{id}: the mark scheme of one question (not blocked by recorded marks). */
export const PATCH = restRoute<{ questionId: string }>(async ({ db, user, params, request }) => {
  const body = await readJsonBody(request);
  return questionOutput.parse(
    await asUser(db, user.id, (tx) => editMarkScheme(tx, user.id, { question_id: pathId(params.questionId, "Question"), body: body as never })),
  );
});
