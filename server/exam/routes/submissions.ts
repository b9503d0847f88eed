import { asUser } from "../../db/rls";
import { defineRoute, errorMeaning, fileReply, jsonBody, jsonReply, recordPath, replyWith, streamedBody } from "../../http/route";
import { absenceOutput, setAbsence } from "../absence";
import { assignScan, assignScanBody, assignScanOutput } from "../assign-scan";
import { batchIdInput } from "../batches";
import { saveMark } from "../mark-writer";
import { markOutput, markUpsertBody } from "../marks";
import { openSubmissionScan, submissionIdInput } from "../scan-files";
import { scanUploadOutput, uploadScan } from "../scans";
import { detailResponse } from "../../errors";
import { ScanLooksLikePileError, UPLOAD_INSTEAD_HEADER } from "../intake/scan-check";

/** A batch's submissions: their scans (in, out, and given to a student) and their marks. */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;

export const uploadScanRoute = defineRoute({
  method: "POST",
  path: "/api/exam/batches/{batch_id}/scans",
  operationId: "uploadScan",
  tags,
  summary: "Upload a scanned PDF (streamed) and match it to a submission",
  auth: "bearer",
  params: batchIdInput,
  body: streamedBody("multipart/form-data", {
    type: "object",
    required: ["file"],
    properties: {
      file: { type: "string", contentMediaType: "application/pdf", description: "The scan, application/pdf or application/x-pdf, beginning with %PDF-" },
      student_id: { type: "string", format: "uuid", description: "For manual matching: the student whose submission gets the scan" },
      matching_method: { type: "string", enum: ["manual", "ordered"], default: "manual" },
    },
  }),
  replies: {
    200: jsonReply(scanUploadOutput, "The matched submission"),
    201: jsonReply(scanUploadOutput, "A new unmatched submission"),
  },
  errors: {
    400: `${invalid}; or the scan is not one student's script: more pages than the paper, pages printed for several scripts, for another batch, or for another student (when the same file should be read as a pile, the reply has the header ${UPLOAD_INSTEAD_HEADER}: pile)`,
    403: "Not the batch's owner",
    404: notVisible,
    409: "The batch is archived or signed off",
    413: "Larger than the maximum scan size",
    415: "Not a PDF by declared type or by signature",
    502: "Scan storage failed",
  },
  handler: async ({ db, user, params, body }) => {
    try {
      const { submission, created } = await uploadScan(db, user.id, params.batch_id, body);
      return replyWith(created ? 201 : 200, submission);
    } catch (error) {
      // The contract's body ({detail}, docs/spec/classroom-api.md "Errors"); the header tells a client that the same
      // file goes up as a pile.
      if (error instanceof ScanLooksLikePileError) return detailResponse(error, { [UPLOAD_INSTEAD_HEADER]: "pile" });
      throw error;
    }
  },
});

export const downloadScanRoute = defineRoute({
  method: "GET",
  path: "/api/exam/submissions/{submission_id}/scan",
  operationId: "downloadScan",
  tags,
  summary: "The scanned PDF of a submission the caller may see",
  auth: "bearer",
  params: submissionIdInput,
  replies: { 200: fileReply("application/pdf", "The PDF", { type: "string", contentMediaType: "application/pdf" }) },
  errors: {
    404: "Not found, outside the caller's scope, or no scan yet",
    409: "An anonymous batch, and the scan cannot be read to hide the name written on it",
  },
  handler: async ({ db, user, params }) => {
    const scan = await openSubmissionScan(db, user.id, params.submission_id);
    return new Response(scan.body, {
      headers: {
        "content-type": scan.contentType,
        "content-length": String(scan.byteSize),
        "content-disposition": "inline",
        // A submission's scan can be replaced by a later upload: the browser may keep it briefly only.
        "cache-control": "private, max-age=60",
        "x-content-type-options": "nosniff",
      },
    });
  },
});

export const assignScanRoute = defineRoute({
  method: "POST",
  path: "/api/exam/submissions/{submission_id}/assign",
  operationId: "assignScan",
  tags,
  summary:
    "Give an unmatched scan to a student (batch owner): the scan and its marks move to the student's submission, which becomes matched (or marking/complete with marks), and the unmatched submission is deleted. A student of the school who is not on the roster gets the unmatched submission itself.",
  auth: "bearer",
  params: submissionIdInput.extend({ submission_id: submissionIdInput.shape.submission_id.describe("Id of the unmatched submission (a scan without a student)") }),
  body: jsonBody(assignScanBody),
  replies: { 200: jsonReply(assignScanOutput, "The student's submission, with the scan") },
  errors: {
    400: "Invalid input, or student_id is not a student of the batch's school",
    403: "Not the batch's owner",
    404: notVisible,
    409: "The batch is archived or signed off; the submission is not an unmatched scan; the student already has a scan; or both hold a mark for the same question",
  },
  handler: ({ db, user, params, body }) => asUser(db, user.id, (tx) => assignScan(tx, user.id, { submission_id: params.submission_id, ...body })),
});

export const upsertMarkRoute = defineRoute({
  method: "PUT",
  path: "/api/exam/marks/{mark_id}",
  operationId: "upsertMark",
  tags,
  summary: "Upsert the mark of one submission and question; batch_id comes from the submission",
  auth: "bearer",
  params: recordPath("mark_id", "Mark", "Id of the mark entry (used when the entry is new)"),
  body: jsonBody(markUpsertBody),
  replies: { 200: jsonReply(markOutput, "The mark entry") },
  errors: {
    400: invalid,
    403: "Not a writer of the batch (its owner, its markers or a department head), or a shared batch's pair outside the caller's allocation",
    404: notVisible,
    409: "The batch is archived or signed off, the id names another mark, or another marker holds the pair",
    500: "The mark could not be saved",
  },
  handler: ({ db, user, params, body }) => saveMark(db, user.id, { mark_id: params.mark_id, body }),
});

const absenceErrors = {
  403: "Not a writer of the batch (its owner, its markers or a department head)",
  404: notVisible,
  409: "The batch is archived or signed off; or the submission has a scan or marks, or is a scan without a student (marking absent only)",
} as const;

export const markAbsentRoute = defineRoute({
  method: "PUT",
  path: "/api/exam/submissions/{submission_id}/absence",
  operationId: "markAbsent",
  tags,
  summary:
    "Mark the student of a submission absent (a writer of the batch: its owner, its markers or a department head; idempotent). The status stays absent; absence_marked_at tells an explicit absence from a student without a scan yet. Ordered scan matching skips the student; a scan or a mark that arrives later clears the absence.",
  auth: "bearer",
  params: submissionIdInput,
  replies: { 200: jsonReply(absenceOutput, "The submission, with absence_marked_at set") },
  errors: absenceErrors,
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => setAbsence(tx, user.id, { submission_id: params.submission_id, absent: true })),
});

export const undoAbsentRoute = defineRoute({
  method: "DELETE",
  path: "/api/exam/submissions/{submission_id}/absence",
  operationId: "undoAbsent",
  tags,
  summary: "Undo a marked absence (idempotent): the student reads as having no scan yet again",
  auth: "bearer",
  params: submissionIdInput,
  replies: { 200: jsonReply(absenceOutput, "The submission, with absence_marked_at null") },
  errors: absenceErrors,
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => setAbsence(tx, user.id, { submission_id: params.submission_id, absent: false })),
});

export const submissionRoutes = [uploadScanRoute, downloadScanRoute, assignScanRoute, markAbsentRoute, undoAbsentRoute, upsertMarkRoute];
