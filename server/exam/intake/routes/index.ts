import { defineRoute, errorMeaning, jsonReply, replyWith, streamedBody } from "../../../http/route";
import { batchIdInput } from "../../batches";
import { pileOutput, uploadPile } from "../piles";

/**
 * Class-set intake's pile upload (streamed, so still a hand-written route); intake's other routes are faces of
 * exam.intake (server/exam/intake/intake-operations.ts).
 */

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

export const intakeRoutes = [uploadPileRoute];
