import { errorMeaning } from "../http/route";
import { defineOperation } from "../operations/define";
import { editMarkScheme, editMarkSchemeInput, questionOutput } from "./templates";

/** One question of a template (`exam.questions.<name>` over tRPC; REST under /api/exam/questions). */
export const questionOperations = {
  editMarkScheme: defineOperation({
    kind: "mutation",
    // REST's body is the input's `body`, parsed at the edge so that a refusal names the field as this client sent it (`mark_scheme.points.0`).
    input: editMarkSchemeInput,
    output: questionOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => editMarkScheme(tx, caller.id, input),
    rest: {
      method: "PATCH",
      path: "/api/exam/questions/{question_id}",
      operationId: "editMarkScheme",
      tags: ["exam"],
      summary: "Edit one question's mark scheme (not blocked by recorded marks)",
      bodyMember: "body",
      reply: "The question",
      errors: { 400: errorMeaning.invalid, 403: "Not the template's owner", 404: errorMeaning.notVisible, 409: "max_marks below a mark already awarded" },
    },
  }),
};
