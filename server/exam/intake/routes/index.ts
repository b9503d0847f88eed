import { asUser } from "../../../db/rls";
import { defineRoute, errorMeaning, fileReply, jsonBody, jsonReply, recordPath, replyWith, streamedBody } from "../../../http/route";
import { submissionIdInput } from "../../scan-files";
import { nameCrop, scanPageIdInput, scanPageImage } from "../name-crop";
import { batchIdInput } from "../../batches";
import { movePage, movePageBody, movePageOutput } from "../move-page";
import { pileOutput, uploadPile } from "../piles";
import { intakeStatus, intakeStatusOutput, listScanPages, scanPageListOutput } from "../status";

/** Class-set intake: scanned piles in, their pages filed into submissions, and the pages moved by hand. */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;

export const uploadPileRoute = defineRoute({
  method: "POST",
  path: "/api/exam/batches/{batch_id}/piles",
  operationId: "uploadScanPile",
  tags,
  summary:
    "Upload one scanned pile of printed scripts (a PDF of a class set, pages in any order; streamed). A background job reads each page's code and files it into its submission; GET …/intake follows it. Several PDFs are several requests.",
  auth: "bearer",
  params: batchIdInput,
  body: streamedBody("multipart/form-data", {
    type: "object",
    required: ["file"],
    properties: { file: { type: "string", contentMediaType: "application/pdf", description: "The pile, application/pdf or application/x-pdf, beginning with %PDF-" } },
  }),
  replies: { 202: jsonReply(pileOutput, "The pile, queued for reading") },
  errors: {
    400: invalid,
    403: "Not the batch's owner",
    404: notVisible,
    409: "The batch is archived or signed off",
    413: "Larger than the maximum pile size (MAX_PILE_BYTES)",
    415: "Not multipart, or not a PDF by declared type or by signature",
    502: "Pile storage failed",
  },
  handler: async ({ db, user, params, body }) => replyWith(202, await uploadPile(db, user.id, params.batch_id, body)),
});

export const intakeStatusRoute = defineRoute({
  method: "GET",
  path: "/api/exam/batches/{batch_id}/intake",
  operationId: "getIntakeStatus",
  tags,
  summary: "Where a batch's scanned piles stand: each pile's reading, pages by where they went, scripts to identify, missing pages, pages set aside (staff of the school)",
  auth: "bearer",
  params: batchIdInput,
  replies: { 200: jsonReply(intakeStatusOutput, "The batch's intake") },
  errors: { 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => intakeStatus(tx, params.batch_id)),
});

export const listScanPagesRoute = defineRoute({
  method: "GET",
  path: "/api/exam/batches/{batch_id}/scan-pages",
  operationId: "listScanPages",
  tags,
  summary: "Every scanned page of a batch, in pile order: its pile, placement, submission and position, rotation and note (staff of the school)",
  auth: "bearer",
  params: batchIdInput,
  replies: { 200: jsonReply(scanPageListOutput, "The batch's scanned pages") },
  errors: { 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => listScanPages(tx, params.batch_id)),
});

export const movePageRoute = defineRoute({
  method: "POST",
  path: "/api/exam/scan-pages/{page_id}/move",
  operationId: "moveScanPage",
  tags,
  summary:
    "Move one scanned page by hand (batch owner) to exactly one of: a submission of the batch, a student's submission, or a new script without a student; at page_number or the first free position. Both submissions' scans are rebuilt.",
  auth: "bearer",
  params: recordPath("page_id", "Page", "Id of the scanned page"),
  body: jsonBody(movePageBody),
  replies: { 200: jsonReply(movePageOutput, "The page's new place, the submission it went to and the one it left") },
  errors: {
    400: "Invalid input: not exactly one target, or the student is not on the batch's roster",
    403: "Not the batch's owner",
    404: notVisible,
    409: "The batch is archived or signed off; the page was refused (printed for another batch) or is still being read; the position is taken; or the submission's scan was uploaded on its own",
  },
  handler: ({ db, user, params, body }) => asUser(db, user.id, (tx) => movePage(tx, user.id, { page_id: params.page_id, ...body })),
});

export const nameCropRoute = defineRoute({
  method: "GET",
  path: "/api/exam/submissions/{submission_id}/name-crop",
  operationId: "getNameCrop",
  tags,
  summary: "The name written on a script: the template's name box cut out of the submission's scan, upright, as JPEG (for identifying scripts)",
  auth: "bearer",
  params: submissionIdInput,
  replies: { 200: fileReply("image/jpeg", "The crop", { type: "string", contentMediaType: "image/jpeg" }) },
  errors: { 403: "An anonymous batch, and the caller is not its owner", 404: "Not found, outside the caller's scope, or no scan yet" },
  handler: async ({ db, user, params }) => jpegReply(await nameCrop(db, user.id, params.submission_id)),
});

export const scanPageImageRoute = defineRoute({
  method: "GET",
  path: "/api/exam/scan-pages/{page_id}/image",
  operationId: "getScanPageImage",
  tags,
  summary: "One scanned page of a pile, turned upright, as JPEG (staff of the school)",
  auth: "bearer",
  params: scanPageIdInput,
  replies: { 200: fileReply("image/jpeg", "The page", { type: "string", contentMediaType: "image/jpeg" }) },
  errors: { 404: notVisible },
  handler: async ({ db, user, params }) => jpegReply(await scanPageImage(db, user.id, params.page_id)),
});

function jpegReply(jpeg: Uint8Array) {
  return new Response(new Blob([jpeg as Uint8Array<ArrayBuffer>]), {
    headers: {
      "content-type": "image/jpeg",
      "content-length": String(jpeg.byteLength),
      // Pages can move between scripts: kept briefly only, as the scan is.
      "cache-control": "private, max-age=60",
      "x-content-type-options": "nosniff",
    },
  });
}

export const intakeRoutes = [uploadPileRoute, intakeStatusRoute, listScanPagesRoute, movePageRoute, nameCropRoute, scanPageImageRoute];
