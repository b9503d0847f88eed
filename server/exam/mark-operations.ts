import { errorMeaning } from "../http/route";
import { defineOperation } from "../operations/define";
import { saveMark } from "./mark-writer";
import { markOutput, upsertMarkInput } from "./marks";
import { listSubmissionMarks, submissionMarksInput, submissionMarksOutput } from "./submission-marks";

/**
 * Marks (`exam.marks.<name>` over tRPC; REST PUT /api/exam/marks/{mark_id}): the marking screen's
 * submission with its mark entries, and one mark saved. Another school's submission is not found,
 * whoever asks.
 */

export const markOperations = {
  /** The marking screen: one submission with its recorded mark entries. */
  forSubmission: defineOperation({
    kind: "query",
    input: submissionMarksInput,
    output: submissionMarksOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, input }) => listSubmissionMarks(tx, input),
  }),

  upsert: defineOperation({
    kind: "mutation",
    input: upsertMarkInput,
    output: markOutput,
    // Saves that arrive together share a transaction, each as its caller (server/exam/mark-writer.ts).
    transaction: "database",
    role: "staff",
    handler: ({ db, caller, input }) => saveMark(db, caller.id, input),
    rest: {
      method: "PUT",
      path: "/api/exam/marks/{mark_id}",
      operationId: "upsertMark",
      tags: ["exam"],
      summary: "Upsert the mark of one submission and question; batch_id comes from the submission",
      bodyMember: "body",
      pathDescriptions: { mark_id: "Id of the mark entry (used when the entry is new)" },
      reply: "The mark entry",
      errors: {
        400: errorMeaning.invalid,
        403: "Not a writer of the batch (its owner, its markers or a department head), or a shared batch's pair outside the caller's allocation",
        404: errorMeaning.notVisible,
        409: "The batch is archived or signed off, the id names another mark, or another marker holds the pair",
        500: "The mark could not be saved",
      },
    },
  }),
};
