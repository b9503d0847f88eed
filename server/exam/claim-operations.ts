import { z } from "zod";
import { errorMeaning } from "../http/route";
import { defineOperation } from "../operations/define";
import { claim, claimInput, claimReply, releaseClaim, releaseInput } from "./shared-marking";

/** Claims of shared marking (`exam.claims.<name>`; server/exam/shared-marking.ts): who is marking which (script, question) now. */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;

export const claimOperations = {
  claim: defineOperation({
    kind: "mutation",
    input: claimInput,
    output: claimReply,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => claim(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/batches/{batch_id}/claims",
      operationId: "claimMarkingPair",
      tags,
      summary: "Claim a (script, question) to mark, or the next one of the caller's allocation; the claim lasts 10 minutes and a save renews it",
      bodyMember: "body",
      reply: "The claim, or null when nothing is left",
      errors: {
        400: invalid,
        403: "The pair is not in the caller's allocation",
        404: notVisible,
        409: "Another marker holds the pair, the batch has no markers, or it is archived or signed off",
      },
    },
  }),

  release: defineOperation({
    kind: "mutation",
    input: releaseInput,
    output: z.object({ released: z.boolean() }),
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => releaseClaim(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/batches/{batch_id}/claims/release",
      operationId: "releaseMarkingPair",
      tags,
      summary: "Release the caller's claim on a (script, question) (the owner releases anyone's); idempotent",
      bodyMember: "body",
      reply: "Whether a claim was released",
      errors: { 400: invalid, 404: notVisible },
    },
  }),
};
