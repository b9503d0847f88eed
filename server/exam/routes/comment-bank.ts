import { asUser } from "../../db/rls";
import { defineRoute, errorMeaning, jsonBody, jsonReply, recordPath, replyWith } from "../../http/route";
import { z } from "zod";
import { listQuestionComments, questionCommentsOutput, removeComment, saveComment, saveCommentBody, savedCommentOutput } from "../comment-bank";

/** A question's comment bank: saved comments and the most used ones. */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;

export const listQuestionCommentsRoute = defineRoute({
  method: "GET",
  path: "/api/exam/questions/{question_id}/comments",
  operationId: "listQuestionComments",
  tags,
  summary: "A question's saved comments, and the comments used most on its marks",
  auth: "bearer",
  params: recordPath("question_id", "Question"),
  replies: { 200: jsonReply(questionCommentsOutput, "Saved and frequent comments") },
  errors: { 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => listQuestionComments(tx, { question_id: params.question_id })),
});

export const saveCommentRoute = defineRoute({
  method: "POST",
  path: "/api/exam/questions/{question_id}/comments",
  operationId: "saveComment",
  tags,
  summary: "Save a comment for a question (the same text is saved once)",
  auth: "bearer",
  params: recordPath("question_id", "Question"),
  body: jsonBody(saveCommentBody),
  replies: { 201: jsonReply(savedCommentOutput, "The saved comment") },
  errors: { 400: invalid, 404: notVisible },
  handler: async ({ db, user, params, body }) =>
    replyWith(201, await asUser(db, user.id, (tx) => saveComment(tx, user.id, { question_id: params.question_id, body }))),
});

export const removeCommentRoute = defineRoute({
  method: "DELETE",
  path: "/api/exam/saved-comments/{comment_id}",
  operationId: "removeSavedComment",
  tags,
  summary: "Remove a saved comment (who saved it, or the template's owner)",
  auth: "bearer",
  params: recordPath("comment_id", "Saved comment"),
  replies: { 200: jsonReply(z.object({ id: z.uuid() }), "The removed comment's id") },
  errors: { 403: "Neither who saved it nor the template's owner", 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => removeComment(tx, user.id, { comment_id: params.comment_id })),
});

export const commentBankRoutes = [listQuestionCommentsRoute, saveCommentRoute, removeCommentRoute];
