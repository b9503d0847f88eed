import { errorMeaning } from "../../http/route";
import { defineOperation } from "../../operations/define";
import { releaseBatchInput, releaseInput, releaseResults, releaseStatus, releaseStatusOutput, withdrawRelease } from "./release";

/**
 * Release of results to students (`exam.release.<name>`; server/exam/returns/release.ts). The batch is
 * looked for before the role is asked: another school's batch, and any batch for a student, is not found.
 */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;
const notOwner = "Not the batch's owner";

export const releaseOperations = {
  status: defineOperation({
    kind: "query",
    input: releaseBatchInput,
    output: releaseStatusOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => releaseStatus(tx, caller.id, input),
    rest: {
      method: "GET",
      path: "/api/exam/batches/{batch_id}/release",
      operationId: "getRelease",
      tags,
      summary: "Whether the batch's results are released to students: the scope, when and by whom, until when reviews are open, and the scripts it counts",
      reply: "The release's state",
      errors: { 404: notVisible },
    },
  }),

  release: defineOperation({
    kind: "mutation",
    input: releaseInput,
    output: releaseStatusOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => releaseResults(tx, caller.id, input),
    rest: {
      method: "PUT",
      path: "/api/exam/batches/{batch_id}/release",
      operationId: "releaseResults",
      tags,
      summary: "Release the batch's results to its students (every script they sat, or only complete ones), or change the release's scope or review date",
      reply: "The release's state",
      example: '{"scope":"all","reviews_until":null}',
      errors: {
        400: invalid,
        403: notOwner,
        404: notVisible,
        409: "The batch is archived; it is under moderation and not signed off (send confirm_unmoderated: true to release anyway); or no script is in the scope",
      },
    },
  }),

  withdraw: defineOperation({
    kind: "mutation",
    input: releaseBatchInput,
    output: releaseStatusOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => withdrawRelease(tx, caller.id, input),
    rest: {
      method: "DELETE",
      path: "/api/exam/batches/{batch_id}/release",
      operationId: "withdrawRelease",
      tags,
      summary: "Withdraw the batch's results from its students (idempotent)",
      reply: "The release's state, withdrawn",
      errors: { 403: notOwner, 404: notVisible },
    },
  }),
};
