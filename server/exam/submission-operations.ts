import { errorMeaning, fileReply, replyWith, streamedBody } from "../http/route";
import { defineOperation } from "../operations/define";
import { absenceOutput, setAbsence, setAbsenceInput } from "./absence";
import { assignScan, assignScanInput, assignScanOutput } from "./assign-scan";
import { batchIdInput } from "./batches";
import { ScanLooksLikePileError, UPLOAD_INSTEAD_HEADER } from "./intake/scan-check";
import { openSubmissionScan, submissionIdInput } from "./scan-files";
import { scanUploadOutput, uploadScan } from "./scans";

/**
 * A batch's submissions (`exam.submissions.<name>` over tRPC; REST under /api/exam): a scan uploaded into
 * a batch (its multipart body streamed: REST only), a submission's scan read back, an unmatched scan given
 * to a student, and a student marked absent. Listed in the order the OpenAPI document lists their REST
 * faces. Another school's batch or submission is not found, whoever asks.
 */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;
const notWriter = "Not a writer of the batch (its owner, its markers or a department head)";
const absenceConflict = "The batch is archived or signed off; or the submission has a scan or marks, or is a scan without a student (marking absent only)";

/**
 * A scan shown in the browser (the marker's, or a student's own released one): inline, never sniffed,
 * kept by the browser briefly only (a scan can be replaced by a later upload, a release withdrawn).
 */
export const inlineScanResponse = (scan: Awaited<ReturnType<typeof openSubmissionScan>>) =>
  new Response(scan.body, {
    headers: {
      "content-type": scan.contentType,
      "content-length": String(scan.byteSize),
      "content-disposition": "inline",
      "cache-control": "private, max-age=60",
      "x-content-type-options": "nosniff",
    },
  });

export const submissionOperations = {
  /** A scanned PDF uploaded into a batch and matched to a submission (REST only: the body is the file, streamed). */
  uploadScan: defineOperation({
    kind: "mutation",
    input: batchIdInput,
    output: scanUploadOutput,
    // uploadScan judges the batch as the caller, streams the file to the object store, then files it in a transaction of its own.
    transaction: "database",
    role: "staff",
    trpc: false,
    handler: ({ db, caller, input, upload }) => uploadScan(db, caller.id, input.batch_id, upload),
    rest: {
      method: "POST",
      path: "/api/exam/batches/{batch_id}/scans",
      operationId: "uploadScan",
      tags,
      summary: "Upload a scanned PDF (streamed) and match it to a submission",
      streamedBody: streamedBody("multipart/form-data", {
        type: "object",
        required: ["file"],
        properties: {
          file: { type: "string", contentMediaType: "application/pdf", description: "The scan, application/pdf or application/x-pdf, beginning with %PDF-" },
          student_id: { type: "string", format: "uuid", description: "For manual matching: the student whose submission gets the scan" },
          matching_method: { type: "string", enum: ["manual", "ordered"], default: "manual" },
        },
      }),
      replies: { 200: "The matched submission", 201: "A new unmatched submission" },
      respond: ({ submission, created }) => replyWith(created ? 201 : 200, submission),
      // The contract's body ({detail}, docs/spec/classroom-api.md "Errors"); the header tells a client that the same file goes up as a pile.
      errorHeaders: (error) => (error instanceof ScanLooksLikePileError ? { [UPLOAD_INSTEAD_HEADER]: "pile" } : undefined),
      errors: {
        400: `${invalid}; or the scan is not one student's script: more pages than the paper, pages printed for several scripts, for another batch, or for another student (when the same file should be read as a pile, the reply has the header ${UPLOAD_INSTEAD_HEADER}: pile)`,
        403: "Not the batch's owner",
        404: notVisible,
        409: "The batch is archived or signed off",
        413: "Larger than the maximum scan size",
        415: "Not a PDF by declared type or by signature",
        502: "Scan storage failed",
      },
    },
  }),

  /** The scanned PDF of a submission (REST only: a file). */
  downloadScan: defineOperation({
    kind: "query",
    input: submissionIdInput,
    // openSubmissionScan judges the submission in a transaction of its own as the caller, then reads the object store after it.
    transaction: "database",
    role: "signed-in",
    trpc: false,
    handler: ({ db, caller, input }) => openSubmissionScan(db, caller.id, input.submission_id),
    rest: {
      method: "GET",
      path: "/api/exam/submissions/{submission_id}/scan",
      operationId: "downloadScan",
      tags,
      summary: "The scanned PDF of a submission the caller may see",
      file: fileReply("application/pdf", "The PDF", { type: "string", contentMediaType: "application/pdf" }),
      respond: inlineScanResponse,
      errors: {
        404: "Not found, outside the caller's scope, or no scan yet",
        409: "An anonymous batch, and the scan cannot be read to hide the name written on it",
      },
    },
  }),

  /** An unmatched scan given to a student afterwards (its marks move with it). */
  assign: defineOperation({
    kind: "mutation",
    input: assignScanInput,
    output: assignScanOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => assignScan(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/submissions/{submission_id}/assign",
      operationId: "assignScan",
      tags,
      summary:
        "Give an unmatched scan to a student (batch owner): the scan and its marks move to the student's submission, which becomes matched (or marking/complete with marks), and the unmatched submission is deleted. A student of the school who is not on the roster gets the unmatched submission itself.",
      pathDescriptions: { submission_id: "Id of the unmatched submission (a scan without a student)" },
      reply: "The student's submission, with the scan",
      errors: {
        400: "Invalid input, or student_id is not a student of the batch's school",
        403: "Not the batch's owner",
        404: notVisible,
        409: "The batch is archived or signed off; the submission is not an unmatched scan; the student already has a scan; or both hold a mark for the same question",
      },
    },
  }),

  /** tRPC's "Mark absent" (absent: true) and its "Undo" (absent: false); REST says each with its own method. */
  setAbsence: defineOperation({
    kind: "mutation",
    input: setAbsenceInput,
    output: absenceOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => setAbsence(tx, caller.id, input),
  }),

  /** PUT …/absence: setAbsence with absent: true (REST only). */
  markAbsent: defineOperation({
    kind: "mutation",
    input: submissionIdInput,
    output: absenceOutput,
    transaction: "as-user",
    role: "staff",
    trpc: false,
    handler: ({ tx, caller, input }) => setAbsence(tx, caller.id, { submission_id: input.submission_id, absent: true }),
    rest: {
      method: "PUT",
      path: "/api/exam/submissions/{submission_id}/absence",
      operationId: "markAbsent",
      tags,
      summary:
        "Mark the student of a submission absent (a writer of the batch: its owner, its markers or a department head; idempotent). The status stays absent; absence_marked_at tells an explicit absence from a student without a scan yet. Ordered scan matching skips the student; a scan or a mark that arrives later clears the absence.",
      reply: "The submission, with absence_marked_at set",
      errors: { 403: notWriter, 404: notVisible, 409: absenceConflict },
    },
  }),

  /** DELETE …/absence: setAbsence with absent: false (REST only). */
  undoAbsent: defineOperation({
    kind: "mutation",
    input: submissionIdInput,
    output: absenceOutput,
    transaction: "as-user",
    role: "staff",
    trpc: false,
    handler: ({ tx, caller, input }) => setAbsence(tx, caller.id, { submission_id: input.submission_id, absent: false }),
    rest: {
      method: "DELETE",
      path: "/api/exam/submissions/{submission_id}/absence",
      operationId: "undoAbsent",
      tags,
      summary: "Undo a marked absence (idempotent): the student reads as having no scan yet again",
      reply: "The submission, with absence_marked_at null",
      errors: { 403: notWriter, 404: notVisible, 409: absenceConflict },
    },
  }),
};
