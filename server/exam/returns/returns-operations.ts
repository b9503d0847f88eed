import { errorMeaning, fileReply } from "../../http/route";
import { defineOperation } from "../../operations/define";
import { batchIdInput } from "../batches";
import { attachmentDisposition } from "../results-csv";
import { submissionIdInput } from "../scan-files";
import { type PdfFile, staffFeedbackSheets, staffMarkedPdf, staffMarkedZip } from "./returns-downloads";

/**
 * Marked work as files for staff (`exam.returns.<name>`, REST only: files; issue 35, items 4 and 5): one
 * script's marked PDF, the batch's marked scripts as a zip (streamed), and the class's feedback sheets.
 * Whoever may read the batch's results may download them (the results CSV's rule); a student, and
 * anyone of another school, gets 404. The student's own PDF is `student.scripts.pdf`.
 */
const tags = ["exam"];
const { notVisible } = errorMeaning;
const refused = "The PDF cannot be made: a script breaks one of its limits (its scan, its annotations) or its scan is damaged; the sentence says which";
const workerDown = "Making the PDF stopped or took too long; try again";

/** A PDF to download; a release can be withdrawn and marks change, so nothing is kept. */
export const pdfAttachment = ({ bytes, fileName }: PdfFile) =>
  new Response(bytes as Uint8Array<ArrayBuffer>, {
    headers: {
      "content-type": "application/pdf",
      "content-length": String(bytes.byteLength),
      "content-disposition": attachmentDisposition(fileName),
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });

const pdfReply = (description: string) => fileReply("application/pdf", description, { type: "string", contentMediaType: "application/pdf" });

export const returnsOperations = {
  markedPdf: defineOperation({
    kind: "query",
    input: submissionIdInput,
    // The script is read in a transaction of its own as the caller, then drawn in the worker after it.
    transaction: "database",
    role: "signed-in",
    trpc: false,
    handler: ({ db, caller, input }) => staffMarkedPdf(db, caller.id, input.submission_id),
    rest: {
      method: "GET",
      path: "/api/exam/submissions/{submission_id}/marked-pdf",
      operationId: "downloadMarkedPdf",
      tags,
      summary:
        "One script as a marked PDF: a cover sheet (total, mark and comment per question, what to revise), then the scan with the first marking's annotations and each question's mark beside it. An anonymous batch's script is named by its number and its scan hides the name.",
      file: pdfReply("attachment `<name> - <batch title>.pdf`"),
      respond: pdfAttachment,
      errors: { 400: refused, 404: `${notVisible}; or no scan yet`, 409: "An anonymous batch, and the scan cannot be read to hide the name written on it", 503: workerDown },
    },
  }),

  markedZip: defineOperation({
    kind: "query",
    input: batchIdInput,
    // Each script is read in a transaction of its own while the zip is streamed.
    transaction: "database",
    role: "signed-in",
    trpc: false,
    handler: ({ db, caller, input }) => staffMarkedZip(db, caller.id, input.batch_id),
    rest: {
      method: "GET",
      path: "/api/exam/batches/{batch_id}/marked-scripts",
      operationId: "downloadMarkedScripts",
      tags,
      summary:
        "The batch's marked scripts as a zip, streamed: one PDF per student with a scan, in the class list's order, named by the student (\"Script 17\" in an anonymous batch). A script whose PDF cannot be made is a text file saying why, and the others are still made.",
      file: fileReply("application/zip", "attachment `<title> - marked scripts - <yyyy-mm-dd>.zip`", { type: "string", contentMediaType: "application/zip" }),
      respond: ({ stream, fileName }) =>
        new Response(stream, {
          headers: { "content-type": "application/zip", "content-disposition": attachmentDisposition(fileName), "cache-control": "no-store", "x-content-type-options": "nosniff" },
        }),
      errors: { 400: "The batch has more students than one zip holds", 404: notVisible, 409: "No script of the batch has been scanned yet" },
    },
  }),

  feedbackSheets: defineOperation({
    kind: "query",
    input: batchIdInput,
    transaction: "database",
    role: "signed-in",
    trpc: false,
    handler: ({ db, caller, input }) => staffFeedbackSheets(db, caller.id, input.batch_id),
    rest: {
      method: "GET",
      path: "/api/exam/batches/{batch_id}/feedback-sheets",
      operationId: "downloadFeedbackSheets",
      tags,
      summary:
        "Feedback on paper: one print-ready PDF with every student's cover sheet (name, or script number in an anonymous batch; marks per question, comments, what to revise), each on a new page, in the class list's order (by script number in an anonymous batch). Students marked absent are left out; a student not scanned yet gets a sheet without marks.",
      file: pdfReply("attachment `<title> - feedback sheets - <yyyy-mm-dd>.pdf`"),
      respond: pdfAttachment,
      errors: { 400: "The batch has more students than one PDF holds, or a cover breaks a limit", 404: notVisible, 409: "The batch has no students", 503: workerDown },
    },
  }),
};
