import { z } from "zod";
import { recordId } from "../../http/record-id";
import { errorMeaning, fileReply, streamedBody } from "../../http/route";
import { defineOperation } from "../../operations/define";
import { batchIdInput } from "../batches";
import { submissionIdInput } from "../scan-files";
import { movePage, movePageInput, movePageOutput } from "./move-page";
import { nameCrop, scanPageIdInput, scanPageImage } from "./name-crop";
import { pileOutput, uploadPile } from "./piles";
import { MAX_SCRIPTS_PER_PRINT, printPreview, printPreviewOutput, printScripts, printScriptsBody, printedScriptsResponse } from "./print-scripts";
import { intakeStatus, intakeStatusOutput, listScanPages, scanPageListOutput } from "./status";

/**
 * Class-set intake (`exam.intake.<name>` over tRPC; REST under /api/exam): the print dialog and the
 * printed scripts' PDF, a scanned pile uploaded (its multipart body streamed: REST only), where a batch's
 * piles stand, their pages filed into submissions, the pages moved by hand, and the images identifying a
 * script. Listed in the order the OpenAPI document lists their REST faces, but for the print, which it
 * lists last of exam's (server/rest-routes.ts). Another school's batch, page or submission is not found,
 * whoever asks.
 */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;
const notOwner = "Not the batch's owner";

/** A JPEG the browser may keep briefly only: pages can move between scripts, as the scan can be replaced. */
const jpegFile = (description: string) => fileReply("image/jpeg", description, { type: "string", contentMediaType: "image/jpeg" });
function jpegReply(jpeg: Uint8Array) {
  return new Response(new Blob([jpeg as Uint8Array<ArrayBuffer>]), {
    headers: {
      "content-type": "image/jpeg",
      "content-length": String(jpeg.byteLength),
      "cache-control": "private, max-age=60",
      "x-content-type-options": "nosniff",
    },
  });
}

/** REST's print takes the batch from the path and its JSON body as the request (REST only: the reply is a file). */
const printScriptsInput = z.object({ batch_id: recordId("Batch"), body: printScriptsBody });

export const intakeOperations = {
  /** One scanned pile of printed scripts (REST only: the body is the PDF, streamed); a background job files its pages. */
  uploadPile: defineOperation({
    kind: "mutation",
    input: batchIdInput,
    output: pileOutput,
    // uploadPile judges the batch as the caller, streams the pile to the object store, then records it and queues its job.
    transaction: "database",
    role: "staff",
    trpc: false,
    handler: ({ db, caller, input, upload }) => uploadPile(db, caller.id, input.batch_id, upload),
    rest: {
      method: "POST",
      path: "/api/exam/batches/{batch_id}/piles",
      operationId: "uploadScanPile",
      tags,
      summary:
        "Upload one scanned pile of printed scripts (a PDF of a class set, pages in any order; streamed). A background job reads each page's code and files it into its submission; GET …/intake follows it. Several PDFs are several requests.",
      streamedBody: streamedBody("multipart/form-data", {
        type: "object",
        required: ["file"],
        properties: { file: { type: "string", contentMediaType: "application/pdf", description: "The pile, application/pdf or application/x-pdf, beginning with %PDF-" } },
      }),
      status: 202,
      reply: "The pile, queued for reading",
      errors: {
        400: invalid,
        403: notOwner,
        404: notVisible,
        409: "The batch is archived or signed off",
        413: "Larger than the maximum pile size (MAX_PILE_BYTES)",
        415: "Not multipart, or not a PDF by declared type or by signature",
        502: "Pile storage failed",
      },
    },
  }),

  /** The print dialog: what a print of the batch would hold, and where the stamp would cover the paper. */
  printPreview: defineOperation({
    kind: "query",
    input: batchIdInput,
    output: printPreviewOutput,
    // printPreview judges the batch as the caller, then reads the paper from the object store after it.
    transaction: "database",
    role: "signed-in",
    handler: ({ db, caller, input }) => printPreview(db, caller.id, input.batch_id),
  }),

  status: defineOperation({
    kind: "query",
    input: batchIdInput,
    output: intakeStatusOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, input }) => intakeStatus(tx, input.batch_id),
    rest: {
      method: "GET",
      path: "/api/exam/batches/{batch_id}/intake",
      operationId: "getIntakeStatus",
      tags,
      summary:
        "Where a batch's scanned piles stand: each pile's reading, pages by where they went, scripts to identify, missing pages, pages set aside (staff of the school)",
      reply: "The batch's intake",
      errors: { 404: notVisible },
    },
  }),

  pages: defineOperation({
    kind: "query",
    input: batchIdInput,
    output: scanPageListOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, input }) => listScanPages(tx, input.batch_id),
    rest: {
      method: "GET",
      path: "/api/exam/batches/{batch_id}/scan-pages",
      operationId: "listScanPages",
      tags,
      summary: "Every scanned page of a batch, in pile order: its pile, placement, submission and position, rotation and note (staff of the school)",
      reply: "The batch's scanned pages",
      errors: { 404: notVisible },
    },
  }),

  movePage: defineOperation({
    kind: "mutation",
    input: movePageInput,
    output: movePageOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => movePage(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/scan-pages/{page_id}/move",
      operationId: "moveScanPage",
      tags,
      summary:
        "Move one scanned page by hand (batch owner) to exactly one of: a submission of the batch, a student's submission, or a new script without a student; at page_number or the first free position. Both submissions' scans are rebuilt.",
      pathDescriptions: { page_id: "Id of the scanned page" },
      reply: "The page's new place, the submission it went to and the one it left",
      errors: {
        400: "Invalid input: not exactly one target, or the student is not on the batch's roster",
        403: notOwner,
        404: notVisible,
        409: "The batch is archived or signed off; the page was refused (printed for another batch) or is still being read; the position is taken; or the submission's scan was uploaded on its own",
      },
    },
  }),

  /** The name written on a script, cut out of its scan (REST only: an image). */
  nameCrop: defineOperation({
    kind: "query",
    input: submissionIdInput,
    // nameCrop judges the submission as the caller, then reads and cuts the scan after it.
    transaction: "database",
    role: "signed-in",
    trpc: false,
    handler: ({ db, caller, input }) => nameCrop(db, caller.id, input.submission_id),
    rest: {
      method: "GET",
      path: "/api/exam/submissions/{submission_id}/name-crop",
      operationId: "getNameCrop",
      tags,
      summary: "The name written on a script: the template's name box cut out of the submission's scan, upright, as JPEG (for identifying scripts)",
      file: jpegFile("The crop"),
      respond: jpegReply,
      errors: { 403: "An anonymous batch, and the caller is not its owner", 404: "Not found, outside the caller's scope, or no scan yet" },
    },
  }),

  /** One scanned page, upright (REST only: an image). */
  scanPageImage: defineOperation({
    kind: "query",
    input: scanPageIdInput,
    // scanPageImage judges the page as the caller, then reads and turns the image after it.
    transaction: "database",
    role: "signed-in",
    trpc: false,
    handler: ({ db, caller, input }) => scanPageImage(db, caller.id, input.page_id),
    rest: {
      method: "GET",
      path: "/api/exam/scan-pages/{page_id}/image",
      operationId: "getScanPageImage",
      tags,
      summary: "One scanned page of a pile, turned upright, as JPEG (staff of the school)",
      file: jpegFile("The page"),
      respond: jpegReply,
      errors: { 404: notVisible },
    },
  }),

  /** "Print scripts": the batch's scripts as one PDF, every page stamped with its QR code (REST only: a file). */
  printScripts: defineOperation({
    kind: "mutation",
    input: printScriptsInput,
    // printScripts numbers the scripts in its own transaction, then reads the paper and stamps it after it.
    transaction: "database",
    role: "staff",
    trpc: false,
    handler: ({ db, caller, input }) => printScripts(db, caller.id, input.batch_id, input.body),
    rest: {
      method: "POST",
      path: "/api/exam/batches/{batch_id}/printed-scripts",
      operationId: "printScripts",
      tags,
      summary: "Print the batch's scripts: one PDF, a script per student of the roster (or of submission_ids) plus spare_copies, each page stamped with its QR code",
      description:
        "Owner only. A student keeps the script number of their first print, so a reprint carries the same codes; spare copies take new numbers. " +
        `At most ${MAX_SCRIPTS_PER_PRINT} scripts per print.`,
      bodyMember: "body",
      example: '{"spare_copies": 2}',
      file: fileReply("application/pdf", "attachment `<batch title> - scripts.pdf`: every script's pages, stamped", { type: "string", contentMediaType: "application/pdf" }),
      respond: printedScriptsResponse,
      errors: {
        400: invalid,
        403: notOwner,
        404: notVisible,
        409: "The batch is archived or signed off, or its template has no paper PDF",
        502: "The paper could not be read from storage",
      },
    },
  }),
};
