import { z } from "zod";
import { errorMeaning } from "../http/route";
import { defineOperation } from "../operations/define";
import {
  listQuestionComments,
  questionCommentsInput,
  questionCommentsOutput,
  removeComment,
  removeCommentInput,
  saveComment,
  saveCommentInput,
  savedCommentOutput,
} from "./comment-bank";

/**
 * A question's comment bank: saved comments and the most used ones (`exam.comments.<name>` over tRPC;
 * REST under /api/exam/questions/{question_id}/comments and /api/exam/saved-comments).
 */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;

export const commentOperations = {
  forQuestion: defineOperation({
    kind: "query",
    input: questionCommentsInput,
    output: questionCommentsOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, input }) => listQuestionComments(tx, input),
    rest: {
      method: "GET",
      path: "/api/exam/questions/{question_id}/comments",
      operationId: "listQuestionComments",
      tags,
      summary: "A question's saved comments, and the comments used most on its marks",
      reply: "Saved and frequent comments",
      errors: { 404: notVisible },
    },
  }),

  save: defineOperation({
    kind: "mutation",
    input: saveCommentInput,
    output: savedCommentOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => saveComment(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/questions/{question_id}/comments",
      operationId: "saveComment",
      tags,
      summary: "Save a comment for a question (the same text is saved once)",
      bodyMember: "body",
      status: 201,
      reply: "The saved comment",
      errors: { 400: invalid, 404: notVisible },
    },
  }),

  remove: defineOperation({
    kind: "mutation",
    input: removeCommentInput,
    output: z.object({ id: z.uuid() }),
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => removeComment(tx, caller.id, input),
    rest: {
      method: "DELETE",
      path: "/api/exam/saved-comments/{comment_id}",
      operationId: "removeSavedComment",
      tags,
      summary: "Remove a saved comment (who saved it, or the template's owner)",
      reply: "The removed comment's id",
      errors: { 403: "Neither who saved it nor the template's owner", 404: notVisible },
    },
  }),
};
