import { z } from "zod";
import { errorMeaning, fileReply } from "../../http/route";
import { defineOperation } from "../../operations/define";
import { batchAnswers, setAnswer, setAutoZeroBlanks, submissionAnswers, undoAutomaticMark, zeroBlanks } from "./answers";
import { answerCrop } from "./crop";
import {
  answerCropInput,
  batchAnswersInput,
  batchAnswersOutput,
  setAnswerInput,
  setAnswerOutput,
  setAutoZeroBlanksInput,
  submissionAnswersInput,
  submissionAnswersOutput,
  undoAutomaticMarkInput,
  undoAutomaticMarkOutput,
  zeroBlanksInput,
  zeroBlanksOutput,
} from "./shapes";

/**
 * Answers read from the scan (`exam.answers.<name>`; issue 36): the batch's answers grouped per
 * question, one script's, the marker's decisions on them (a group's answer, the blanks' zeros, an
 * automatic mark undone), the batch's setting for automatic zeros, and the crop of an area (REST only:
 * a PNG). Another school's batch, script or area is not found, whoever asks.
 */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;
const notWriter = "Not a writer of the batch (its owner, its markers, a department head), or outside the caller's allocation";
const closed = "The batch is archived or signed off, a script's question is claimed by another marker, or has a final mark set in moderation";
const answersPath = "/api/exam/batches/{batch_id}/answers";

/** A PNG the browser may keep briefly only: a page can move to another script, or a scan be replaced. */
function pngReply(png: Uint8Array) {
  return new Response(new Blob([png as Uint8Array<ArrayBuffer>]), {
    headers: {
      "content-type": "image/png",
      "content-length": String(png.byteLength),
      "cache-control": "private, max-age=60",
      "x-content-type-options": "nosniff",
    },
  });
}

export const answerOperations = {
  /** The batch's answers: every question read from the scan, its scripts grouped by identical answers. */
  forBatch: defineOperation({
    kind: "query",
    input: batchAnswersInput,
    output: batchAnswersOutput,
    // Read as the caller; the count of scripts still being read is the service's (the jobs' rows).
    transaction: "database",
    role: "signed-in",
    handler: ({ db, caller, input }) => batchAnswers(db, caller.id, input),
    rest: {
      method: "GET",
      path: answersPath,
      operationId: "getBatchAnswers",
      tags,
      summary: "Answers read from the batch's scans, per question: groups of identical tick answers (undecided and blank ones apart), each script's reading, mark and its provenance",
      reply: "The batch's answers",
      errors: { 404: notVisible },
    },
  }),

  /** One script's answers (the marking screen). */
  forSubmission: defineOperation({
    kind: "query",
    input: submissionAnswersInput,
    output: submissionAnswersOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, input }) => submissionAnswers(tx, input),
    rest: {
      method: "GET",
      path: "/api/exam/submissions/{submission_id}/answers",
      operationId: "getSubmissionAnswers",
      tags,
      summary: "Answers read from one script's scan: per question read, the answer or blank state, where its crop lies, the mark and who gave it",
      reply: "The script's answers",
      errors: { 404: notVisible },
    },
  }),

  /** A marker confirms or corrects a tick question's answer for a group of scripts, or one. */
  setAnswer: defineOperation({
    kind: "mutation",
    input: setAnswerInput,
    output: setAnswerOutput,
    // The batch is judged as the caller, then the marks are written by the mark write (its own transaction).
    transaction: "database",
    role: "staff",
    handler: ({ db, caller, input }) => setAnswer(db, caller.id, input),
    rest: {
      method: "PUT",
      path: `${answersPath}/{question_id}`,
      operationId: "setScriptsAnswer",
      tags,
      summary: "Give scripts of the batch a tick question's answer at once: each gets the scheme's marks for it as a teacher's confirmed mark. All or nothing",
      reply: "How many scripts were marked",
      errors: { 400: `${invalid}; a script not of the batch, a box the question has not`, 403: notWriter, 404: notVisible, 409: closed },
    },
  }),

  /** Every confident blank of a written question, without a teacher's mark, gets 0. */
  zeroBlanks: defineOperation({
    kind: "mutation",
    input: zeroBlanksInput,
    output: zeroBlanksOutput,
    transaction: "database",
    role: "staff",
    handler: ({ db, caller, input }) => zeroBlanks(db, caller.id, input),
    rest: {
      method: "POST",
      path: `${answersPath}/{question_id}/zero-blanks`,
      operationId: "zeroBlankAnswers",
      tags,
      summary: "Give 0, as a teacher's confirmed mark, to every script whose answer areas of a written question read blank and that has no teacher's mark for it. All or nothing",
      reply: "How many scripts were marked",
      errors: { 400: invalid, 403: notWriter, 404: notVisible, 409: closed },
    },
  }),

  /** Undo an automatic mark (read from the ticks, or a blank's zero): it goes, and a re-read does not write it again. */
  undoAutomaticMark: defineOperation({
    kind: "mutation",
    input: undoAutomaticMarkInput,
    output: undoAutomaticMarkOutput,
    transaction: "database",
    role: "staff",
    handler: ({ db, caller, input }) => undoAutomaticMark(db, caller.id, input),
    rest: {
      method: "DELETE",
      path: "/api/exam/submissions/{submission_id}/automatic-marks/{question_id}",
      operationId: "undoAutomaticMark",
      tags,
      summary: "Remove a mark read from the scan (ticks, or a blank's automatic 0) of one script's question; re-reading the page never writes it again. A teacher's mark is not removed",
      reply: "Whether an automatic mark was removed",
      errors: { 403: notWriter, 404: notVisible, 409: "The batch is archived or signed off" },
    },
  }),

  /** The batch's setting: confident blanks given 0 automatically (its owner). */
  setAutoZeroBlanks: defineOperation({
    kind: "mutation",
    input: setAutoZeroBlanksInput,
    output: z.object({ auto_zero_blanks: z.boolean() }),
    transaction: "database",
    role: "staff",
    handler: ({ db, caller, input }) => setAutoZeroBlanks(db, caller.id, input),
    rest: {
      method: "PUT",
      path: "/api/exam/batches/{batch_id}/auto-zero-blanks",
      operationId: "setAutoZeroBlanks",
      tags,
      summary: "Turn on or off the batch's automatic 0 for answers read confidently blank (the owner); on gives the scripts already read their zeros, off removes them (a teacher's mark stays)",
      reply: "The setting now",
      errors: { 400: invalid, 403: "Not the batch's owner", 404: notVisible, 409: "The batch is archived or signed off" },
    },
  }),

  /** The crop of one script's response area, as a PNG (REST only: an image). */
  crop: defineOperation({
    kind: "query",
    input: answerCropInput,
    // answerCrop judges the script and area as the caller, then reads and cuts the page after it.
    transaction: "database",
    role: "signed-in",
    trpc: false,
    handler: ({ db, caller, input }) => answerCrop(db, caller.id, input),
    rest: {
      method: "GET",
      path: "/api/exam/submissions/{submission_id}/answer-crops/{response_area_id}",
      operationId: "getAnswerCrop",
      tags,
      summary: "One script's response area cut from its upright scanned page, with a margin, as PNG; the names painted over in an anonymous batch (staff of the school)",
      file: fileReply("image/png", "The crop", { type: "string", contentMediaType: "image/png" }),
      respond: pngReply,
      errors: { 404: "Not found, outside the caller's scope, not an area of the script's paper, or no scan yet" },
    },
  }),
};
