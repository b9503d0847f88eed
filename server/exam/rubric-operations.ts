import { errorMeaning } from "../http/route";
import { defineOperation } from "../operations/define";
import {
  createRubricItem,
  createRubricItemInput,
  deleteRubricItem,
  editRubricItem,
  editRubricItemInput,
  listRubricEdits,
  questionIdInput,
  rubricChangeOutput,
  rubricDeleteOutput,
  rubricHistoryOutput,
  rubricItemIdInput,
  rubricItemOutput,
} from "./rubrics";

/**
 * Rubric items of a template's questions, and their history (`exam.rubric.<name>` over tRPC; REST
 * under /api/exam/questions/{question_id}/rubric-* and /api/exam/rubric-items). A template's items come
 * with exam.templates.get. The writes are the template owner's (the domain functions decide).
 */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;
const notOwner = "Not the template's owner";

export const rubricOperations = {
  create: defineOperation({
    kind: "mutation",
    input: createRubricItemInput,
    output: rubricItemOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => createRubricItem(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/questions/{question_id}/rubric-items",
      operationId: "createRubricItem",
      tags,
      summary: "Add a rubric item to a question (a short text worth points, plus or minus)",
      bodyMember: "body",
      status: 201,
      reply: "The new item",
      errors: { 400: invalid, 403: notOwner, 404: notVisible },
    },
  }),

  edit: defineOperation({
    kind: "mutation",
    input: editRubricItemInput,
    output: rubricChangeOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => editRubricItem(tx, caller.id, input),
    rest: {
      method: "PATCH",
      path: "/api/exam/rubric-items/{item_id}",
      operationId: "editRubricItem",
      tags,
      summary: "Change a rubric item; new points re-score every mark made of it in the template's open batches, at once",
      bodyMember: "body",
      reply: "The item, and how many marks were re-scored",
      errors: { 400: invalid, 403: notOwner, 404: notVisible },
    },
  }),

  delete: defineOperation({
    kind: "mutation",
    input: rubricItemIdInput,
    output: rubricDeleteOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => deleteRubricItem(tx, caller.id, input),
    rest: {
      method: "DELETE",
      path: "/api/exam/rubric-items/{item_id}",
      operationId: "deleteRubricItem",
      tags,
      summary: "Delete a rubric item; the marks of open batches made of it lose it and are re-scored",
      reply: "The deleted item's id, and how many marks were re-scored",
      errors: { 403: notOwner, 404: notVisible },
    },
  }),

  history: defineOperation({
    kind: "query",
    input: questionIdInput,
    output: rubricHistoryOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, input }) => listRubricEdits(tx, input),
    rest: {
      method: "GET",
      path: "/api/exam/questions/{question_id}/rubric-edits",
      operationId: "listRubricEdits",
      tags,
      summary: "The history of a question's rubric: who changed what, when, and how many marks it re-scored",
      reply: "Newest first",
      errors: { 404: notVisible },
    },
  }),
};
