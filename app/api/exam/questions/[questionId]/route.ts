import { asUser } from "@/server/db/rls";
import { pathId } from "@/server/exam/http-input";
import { readJsonBody } from "@/server/http/request-body";
import { editMarkScheme, editMarkSchemeBody, questionOutput } from "@/server/exam/templates";
import { restRoute } from "@/server/http/rest";
import { validatedReply } from "@/server/http/validated-reply";

export const dynamic = "force-dynamic";

/** PATCH /api/exam/questions/{id}: the mark scheme of one question (not blocked by recorded marks). */
export const PATCH = restRoute<{ questionId: string }>(async ({ db, user, params, request }) => {
  const questionId = pathId(params.questionId, "Question");
  // Parsed here so that a refusal names the field as this client sent it (`mark_scheme.points.0`).
  const body = editMarkSchemeBody.parse(await readJsonBody(request));
  return validatedReply(questionOutput, await asUser(db, user.id, (tx) => editMarkScheme(tx, user.id, { question_id: questionId, body })), "PATCH /api/exam/questions/{questionId}");
});
