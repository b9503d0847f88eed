import { errorMeaning } from "../http/route";
import { defineOperation } from "../operations/define";
import { agreementOutput, getAgreement } from "./moderation/agreement";
import { differencesOutput, listDifferences, reconcileInput, reconcileMark, reconciliationOutput } from "./moderation/reconcile";
import { setModerationSample, setSampleInput } from "./moderation/sample";
import { getSecondMarkingQueue, saveSecondMark, secondMarkInput, secondMarkOutput, secondMarkingQueueOutput } from "./moderation/second-marks";
import { moderationBatchInput } from "./moderation/shared";
import { reopenBatch, signOffBatch } from "./moderation/sign-off";
import { getModeration, moderationStateOutput } from "./moderation/state";

/**
 * Moderation (`exam.moderation.<name>`; server/exam/moderation/): the sample, blind second marks,
 * agreement, reconciliation and sign-off. The batch is looked for before the role is asked: another
 * school's batch is not found, by anyone.
 */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;
const notModerator = "Neither the batch's owner nor a department head of its school";
const notHead = "Not a department head of the batch's school";
const closed = "The batch is archived or signed off";

export const moderationOperations = {
  state: defineOperation({
    kind: "query",
    input: moderationBatchInput,
    output: moderationStateOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => getModeration(tx, caller.id, input),
    rest: {
      method: "GET",
      path: "/api/exam/batches/{batch_id}/moderation",
      operationId: "getModeration",
      tags,
      summary: "The batch's moderation sample, how many second marks it has, and its sign-off",
      reply: "The moderation state",
      errors: { 404: notVisible },
    },
  }),

  setSample: defineOperation({
    kind: "mutation",
    input: setSampleInput,
    output: moderationStateOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => setModerationSample(tx, caller.id, input),
    rest: {
      method: "PUT",
      path: "/api/exam/batches/{batch_id}/moderation/sample",
      operationId: "setModerationSample",
      tags,
      summary: "Choose the scripts to second-mark: a percentage of the marked scripts (a reproducible pick) or chosen ones, and the tolerance",
      bodyMember: "body",
      reply: "The moderation state with the new sample",
      errors: { 400: invalid, 403: notModerator, 404: notVisible, 409: `${closed}, or no script has a mark` },
    },
  }),

  queue: defineOperation({
    kind: "query",
    input: moderationBatchInput,
    output: secondMarkingQueueOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => getSecondMarkingQueue(tx, caller.id, input),
    rest: {
      method: "GET",
      path: "/api/exam/batches/{batch_id}/moderation/queue",
      operationId: "getSecondMarkingQueue",
      tags,
      summary: "The caller's blind second marking: sampled scripts and questions, without the first marks",
      reply: "Scripts to second-mark",
      errors: { 404: notVisible },
    },
  }),

  saveSecondMark: defineOperation({
    kind: "mutation",
    input: secondMarkInput,
    output: secondMarkOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => saveSecondMark(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/submissions/{submission_id}/second-marks",
      operationId: "saveSecondMark",
      tags,
      summary: "Give (or change) the caller's blind second mark of one question of a sampled script",
      bodyMember: "body",
      reply: "The second mark",
      errors: {
        400: invalid,
        403: "The caller gave the first mark",
        404: notVisible,
        409: `${closed}; the script is not in the sample, has no first mark, is second-marked by a colleague or reconciled`,
      },
    },
  }),

  agreement: defineOperation({
    kind: "query",
    input: moderationBatchInput,
    output: agreementOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => getAgreement(tx, caller.id, input),
    rest: {
      method: "GET",
      path: "/api/exam/batches/{batch_id}/moderation/agreement",
      operationId: "getModerationAgreement",
      tags,
      summary: "Agreement of first and second marks per question and per first marker, with drift over the session",
      reply: "Agreement statistics",
      errors: { 403: notModerator, 404: notVisible },
    },
  }),

  differences: defineOperation({
    kind: "query",
    input: moderationBatchInput,
    output: differencesOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => listDifferences(tx, caller.id, input),
    rest: {
      method: "GET",
      path: "/api/exam/batches/{batch_id}/moderation/differences",
      operationId: "listModerationDifferences",
      tags,
      summary: "Pairs of marks that differ by more than the tolerance, with their final mark once reconciled",
      reply: "Differences above the tolerance",
      errors: { 403: notModerator, 404: notVisible },
    },
  }),

  reconcile: defineOperation({
    kind: "mutation",
    input: reconcileInput,
    output: reconciliationOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => reconcileMark(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/submissions/{submission_id}/reconcile",
      operationId: "reconcileMark",
      tags,
      summary: "Set the final mark of a second-marked question (the first and second marks are kept)",
      bodyMember: "body",
      reply: "The reconciled pair",
      errors: { 400: invalid, 403: notModerator, 404: notVisible, 409: `${closed}, or the question has no second mark` },
    },
  }),

  signOff: defineOperation({
    kind: "mutation",
    input: moderationBatchInput,
    output: moderationStateOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => signOffBatch(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/batches/{batch_id}/sign-off",
      operationId: "signOffBatch",
      tags,
      summary: "Sign the batch off (a department head): its marks are read-only until a head reopens it",
      reply: "The moderation state, signed off",
      errors: { 403: notHead, 404: notVisible },
    },
  }),

  reopen: defineOperation({
    kind: "mutation",
    input: moderationBatchInput,
    output: moderationStateOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => reopenBatch(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/batches/{batch_id}/reopen",
      operationId: "reopenBatch",
      tags,
      summary: "Reopen a signed-off batch (a department head)",
      reply: "The moderation state, open",
      errors: { 403: notHead, 404: notVisible },
    },
  }),
};
