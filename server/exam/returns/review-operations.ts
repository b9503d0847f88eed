import { z } from "zod";
import { errorMeaning } from "../../http/route";
import { defineOperation } from "../../operations/define";
import {
  answerReviewInput,
  answerReviewRequest,
  myReviewRequests,
  myReviewsOutput,
  requestReview,
  requestReviewInput,
  reviewQueue,
  reviewQueueInput,
  reviewQueueOutput,
  reviewRequestOutput,
} from "./review-requests";

/**
 * Review requests (server/exam/returns/review-requests.ts): the student's side under
 * `student.reviews.<name>` and /api/me, the markers' under `exam.reviews.<name>` and /api/exam.
 */

const { invalid, notVisible } = errorMeaning;
const tags = ["exam"];
const reviewsClosedOrOpen = "Reviews are not open for this paper, or the question already has an open request";

export const studentReviewOperations = {
  /** Ask for one question of a released script to be looked at again. */
  request: defineOperation({
    kind: "mutation",
    input: requestReviewInput,
    output: reviewRequestOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => requestReview(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/me/scripts/{submission_id}/reviews",
      operationId: "requestReview",
      tags,
      summary: "Ask for one question of your released script to be looked at again, with a reason (while reviews are open)",
      pathDescriptions: { submission_id: "Your script's id" },
      status: 201,
      reply: "The request, open",
      errors: { 400: invalid, 404: "The script is not yours, not released, or does not exist", 409: reviewsClosedOrOpen },
    },
  }),

  /** The caller's review requests and their answers, newest first. */
  mine: defineOperation({
    kind: "query",
    input: z.object({ submission_id: z.uuid({ error: "submission_id must be a script id" }).optional() }),
    output: myReviewsOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => myReviewRequests(tx, caller.id, input),
    rest: {
      method: "GET",
      path: "/api/me/reviews",
      operationId: "myReviewRequests",
      tags,
      summary: "Your review requests and their answers, newest first (optionally of one script)",
      reply: "Your review requests",
      errors: { 400: invalid },
    },
  }),
};

export const reviewOperations = {
  /** The review requests the caller answers: theirs, their batches', a signed-off batch's for its heads (anyone else: none). */
  queue: defineOperation({
    kind: "query",
    input: reviewQueueInput,
    output: reviewQueueOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => reviewQueue(tx, caller.id, input),
    rest: {
      method: "GET",
      path: "/api/exam/review-requests",
      operationId: "listReviewRequests",
      tags,
      summary: "The review requests you answer (open first, oldest first), optionally of one batch or status",
      reply: "Review requests",
      errors: { 400: invalid },
    },
  }),

  /** Answer an open request: the mark kept or changed, with a reply; only one answer applies. */
  answer: defineOperation({
    kind: "mutation",
    input: answerReviewInput,
    output: reviewRequestOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => answerReviewRequest(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/review-requests/{request_id}/answer",
      operationId: "answerReviewRequest",
      tags,
      summary: "Answer a review request: keep or change the mark, with a reply for the student",
      pathDescriptions: { request_id: "The review request's id" },
      reply: "The answered request",
      errors: {
        400: invalid,
        403: "The request went to another marker, or the mark is not yours to write",
        404: notVisible,
        409: "Already answered, or the batch is signed off or archived",
      },
    },
  }),
};
