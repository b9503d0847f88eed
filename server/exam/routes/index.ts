import { restRoutesOf } from "../../operations/rest";
import { batchOperations } from "../batch-operations";
import { claimOperations } from "../claim-operations";
import { intakeOperations } from "../intake/intake-operations";
import { markerOperations } from "../marker-operations";
import { moderationOperations } from "../moderation-operations";
import { releaseOperations } from "../returns/release-operations";
import { markOperations } from "../mark-operations";
import { submissionOperations } from "../submission-operations";

const { progress, ...markersBeforeProgress } = markerOperations;
// The print is listed last of exam's routes (server/rest-routes.ts), after the paper's download.
const { printScripts: _printScripts, ...intakeBeforePrint } = intakeOperations;

/**
 * The /api/exam REST routes from the faces of exam.batches, exam.markers, exam.claims, exam.moderation,
 * exam.submissions (a scan's upload first), exam.marks and exam.intake (a pile's upload first), in the
 * order the OpenAPI document lists them (after the faces of the catalogue's exam.templates,
 * exam.questions, exam.rubric and exam.comments, and before exam.files: server/rest-routes.ts).
 */
export const examRoutes = [
  ...restRoutesOf(batchOperations),
  // The document's old order: a marker's queue, then the claims, then everyone's progress.
  ...restRoutesOf(markersBeforeProgress),
  ...restRoutesOf(claimOperations),
  ...restRoutesOf({ progress }),
  ...restRoutesOf(moderationOperations),
  ...restRoutesOf(releaseOperations),
  ...restRoutesOf(submissionOperations),
  ...restRoutesOf(markOperations),
  ...restRoutesOf(intakeBeforePrint),
];

export const examTag = { name: "exam", description: "Exam templates, batches, scans, marks, results and CSV" };
