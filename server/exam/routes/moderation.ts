import { asUser } from "../../db/rls";
import { defineRoute, errorMeaning, jsonBody, jsonReply, recordPath } from "../../http/route";
import { agreementOutput, getAgreement } from "../moderation/agreement";
import { differencesOutput, listDifferences, reconcileBody, reconcileMark, reconciliationOutput } from "../moderation/reconcile";
import { setModerationSample, setSampleBody } from "../moderation/sample";
import { getSecondMarkingQueue, saveSecondMark, secondMarkBody, secondMarkOutput, secondMarkingQueueOutput } from "../moderation/second-marks";
import { reopenBatch, signOffBatch } from "../moderation/sign-off";
import { getModeration, moderationStateOutput } from "../moderation/state";

/** Moderation: the sample, blind second marks, agreement, reconciliation and sign-off (server/exam/moderation/). */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;
const batchPath = recordPath("batch_id", "Batch");
const submissionPath = recordPath("submission_id", "Submission");
const notModerator = "Neither the batch's owner nor a department head of its school";
const closed = "The batch is archived or signed off";

export const getModerationRoute = defineRoute({
  method: "GET",
  path: "/api/exam/batches/{batch_id}/moderation",
  operationId: "getModeration",
  tags,
  summary: "The batch's moderation sample, how many second marks it has, and its sign-off",
  auth: "bearer",
  params: batchPath,
  replies: { 200: jsonReply(moderationStateOutput, "The moderation state") },
  errors: { 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => getModeration(tx, user.id, params)),
});

export const setModerationSampleRoute = defineRoute({
  method: "PUT",
  path: "/api/exam/batches/{batch_id}/moderation/sample",
  operationId: "setModerationSample",
  tags,
  summary: "Choose the scripts to second-mark: a percentage of the marked scripts (a reproducible pick) or chosen ones, and the tolerance",
  auth: "bearer",
  params: batchPath,
  body: jsonBody(setSampleBody),
  replies: { 200: jsonReply(moderationStateOutput, "The moderation state with the new sample") },
  errors: { 400: invalid, 403: notModerator, 404: notVisible, 409: `${closed}, or no script has a mark` },
  handler: ({ db, user, params, body }) => asUser(db, user.id, (tx) => setModerationSample(tx, user.id, { batch_id: params.batch_id, body })),
});

export const secondMarkingQueueRoute = defineRoute({
  method: "GET",
  path: "/api/exam/batches/{batch_id}/moderation/queue",
  operationId: "getSecondMarkingQueue",
  tags,
  summary: "The caller's blind second marking: sampled scripts and questions, without the first marks",
  auth: "bearer",
  params: batchPath,
  replies: { 200: jsonReply(secondMarkingQueueOutput, "Scripts to second-mark") },
  errors: { 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => getSecondMarkingQueue(tx, user.id, params)),
});

export const saveSecondMarkRoute = defineRoute({
  method: "POST",
  path: "/api/exam/submissions/{submission_id}/second-marks",
  operationId: "saveSecondMark",
  tags,
  summary: "Give (or change) the caller's blind second mark of one question of a sampled script",
  auth: "bearer",
  params: submissionPath,
  body: jsonBody(secondMarkBody),
  replies: { 200: jsonReply(secondMarkOutput, "The second mark") },
  errors: {
    400: invalid,
    403: "The caller gave the first mark",
    404: notVisible,
    409: `${closed}; the script is not in the sample, has no first mark, is second-marked by a colleague or reconciled`,
  },
  handler: ({ db, user, params, body }) => asUser(db, user.id, (tx) => saveSecondMark(tx, user.id, { submission_id: params.submission_id, body })),
});

export const agreementRoute = defineRoute({
  method: "GET",
  path: "/api/exam/batches/{batch_id}/moderation/agreement",
  operationId: "getModerationAgreement",
  tags,
  summary: "Agreement of first and second marks per question and per first marker, with drift over the session",
  auth: "bearer",
  params: batchPath,
  replies: { 200: jsonReply(agreementOutput, "Agreement statistics") },
  errors: { 403: notModerator, 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => getAgreement(tx, user.id, params)),
});

export const differencesRoute = defineRoute({
  method: "GET",
  path: "/api/exam/batches/{batch_id}/moderation/differences",
  operationId: "listModerationDifferences",
  tags,
  summary: "Pairs of marks that differ by more than the tolerance, with their final mark once reconciled",
  auth: "bearer",
  params: batchPath,
  replies: { 200: jsonReply(differencesOutput, "Differences above the tolerance") },
  errors: { 403: notModerator, 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => listDifferences(tx, user.id, params)),
});

export const reconcileRoute = defineRoute({
  method: "POST",
  path: "/api/exam/submissions/{submission_id}/reconcile",
  operationId: "reconcileMark",
  tags,
  summary: "Set the final mark of a second-marked question (the first and second marks are kept)",
  auth: "bearer",
  params: submissionPath,
  body: jsonBody(reconcileBody),
  replies: { 200: jsonReply(reconciliationOutput, "The reconciled pair") },
  errors: { 400: invalid, 403: notModerator, 404: notVisible, 409: `${closed}, or the question has no second mark` },
  handler: ({ db, user, params, body }) => asUser(db, user.id, (tx) => reconcileMark(tx, user.id, { submission_id: params.submission_id, body })),
});

export const signOffRoute = defineRoute({
  method: "POST",
  path: "/api/exam/batches/{batch_id}/sign-off",
  operationId: "signOffBatch",
  tags,
  summary: "Sign the batch off (a department head): its marks are read-only until a head reopens it",
  auth: "bearer",
  params: batchPath,
  replies: { 200: jsonReply(moderationStateOutput, "The moderation state, signed off") },
  errors: { 403: "Not a department head of the batch's school", 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => signOffBatch(tx, user.id, params)),
});

export const reopenRoute = defineRoute({
  method: "POST",
  path: "/api/exam/batches/{batch_id}/reopen",
  operationId: "reopenBatch",
  tags,
  summary: "Reopen a signed-off batch (a department head)",
  auth: "bearer",
  params: batchPath,
  replies: { 200: jsonReply(moderationStateOutput, "The moderation state, open") },
  errors: { 403: "Not a department head of the batch's school", 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => reopenBatch(tx, user.id, params)),
});

export const moderationRoutes = [
  getModerationRoute,
  setModerationSampleRoute,
  secondMarkingQueueRoute,
  saveSecondMarkRoute,
  agreementRoute,
  differencesRoute,
  reconcileRoute,
  signOffRoute,
  reopenRoute,
];
