import { defineRoute, errorMeaning, jsonReply, replyWith, streamedBody } from "../../http/route";
import { batchIdInput } from "../batches";
import { scanUploadOutput, uploadScan } from "../scans";
import { detailResponse } from "../../errors";
import { ScanLooksLikePileError, UPLOAD_INSTEAD_HEADER } from "../intake/scan-check";

/**
 * A scan uploaded into a batch (streamed, so still a hand-written route); the submissions' other routes are
 * faces of exam.submissions and exam.marks (server/exam/submission-operations.ts, mark-operations.ts).
 */

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

export const submissionRoutes = [uploadScanRoute];
