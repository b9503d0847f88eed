import { asUser } from "../../db/rls";
import { defineRoute, errorMeaning, jsonBody, jsonReply, recordPath, replyWith } from "../../http/route";
import {
  createRubricItem,
  createRubricItemBody,
  deleteRubricItem,
  editRubricItem,
  editRubricItemBody,
  listRubricEdits,
  rubricChangeOutput,
  rubricDeleteOutput,
  rubricHistoryOutput,
  rubricItemOutput,
} from "../rubrics";

/** Rubric items of a template's questions, and their history. */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;
const notOwner = "Not the template's owner";

export const createRubricItemRoute = defineRoute({
  method: "POST",
  path: "/api/exam/questions/{question_id}/rubric-items",
  operationId: "createRubricItem",
  tags,
  summary: "Add a rubric item to a question (a short text worth points, plus or minus)",
  auth: "bearer",
  params: recordPath("question_id", "Question"),
  body: jsonBody(createRubricItemBody),
  replies: { 201: jsonReply(rubricItemOutput, "The new item") },
  errors: { 400: invalid, 403: notOwner, 404: notVisible },
  handler: async ({ db, user, params, body }) =>
    replyWith(201, await asUser(db, user.id, (tx) => createRubricItem(tx, user.id, { question_id: params.question_id, body }))),
});

export const editRubricItemRoute = defineRoute({
  method: "PATCH",
  path: "/api/exam/rubric-items/{item_id}",
  operationId: "editRubricItem",
  tags,
  summary: "Change a rubric item; new points re-score every mark made of it in the template's open batches, at once",
  auth: "bearer",
  params: recordPath("item_id", "Rubric item"),
  body: jsonBody(editRubricItemBody),
  replies: { 200: jsonReply(rubricChangeOutput, "The item, and how many marks were re-scored") },
  errors: { 400: invalid, 403: notOwner, 404: notVisible },
  handler: ({ db, user, params, body }) => asUser(db, user.id, (tx) => editRubricItem(tx, user.id, { item_id: params.item_id, body })),
});

export const deleteRubricItemRoute = defineRoute({
  method: "DELETE",
  path: "/api/exam/rubric-items/{item_id}",
  operationId: "deleteRubricItem",
  tags,
  summary: "Delete a rubric item; the marks of open batches made of it lose it and are re-scored",
  auth: "bearer",
  params: recordPath("item_id", "Rubric item"),
  replies: { 200: jsonReply(rubricDeleteOutput, "The deleted item's id, and how many marks were re-scored") },
  errors: { 403: notOwner, 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => deleteRubricItem(tx, user.id, { item_id: params.item_id })),
});

export const listRubricEditsRoute = defineRoute({
  method: "GET",
  path: "/api/exam/questions/{question_id}/rubric-edits",
  operationId: "listRubricEdits",
  tags,
  summary: "The history of a question's rubric: who changed what, when, and how many marks it re-scored",
  auth: "bearer",
  params: recordPath("question_id", "Question"),
  replies: { 200: jsonReply(rubricHistoryOutput, "Newest first") },
  errors: { 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => listRubricEdits(tx, { question_id: params.question_id })),
});

export const rubricRoutes = [createRubricItemRoute, editRubricItemRoute, deleteRubricItemRoute, listRubricEditsRoute];
