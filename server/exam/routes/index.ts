import { restRoutesOf } from "../../operations/rest";
import { batchOperations } from "../batch-operations";
import { claimOperations } from "../claim-operations";
import { intakeOperations } from "../intake/intake-operations";
import { intakeRoutes } from "../intake/routes";
import { markerOperations } from "../marker-operations";
import { moderationOperations } from "../moderation-operations";
import { releaseOperations } from "../returns/release-operations";
import { fileRoutes } from "./files";
import { markOperations } from "../mark-operations";
import { submissionOperations } from "../submission-operations";
import { submissionRoutes } from "./submissions";

const { progress, ...markersBeforeProgress } = markerOperations;
// The print is listed last of exam's routes (server/rest-routes.ts), after the paper's download.
const { printScripts: _printScripts, ...intakeBeforePrint } = intakeOperations;

/**
 * The /api/exam REST routes from the faces of exam.batches, exam.markers, exam.claims, exam.moderation,
 * exam.submissions, exam.marks and exam.intake, and the streamed uploads still written by hand (a scan,
 * a pile, a paper), in the order the OpenAPI document lists them (after the faces of the catalogue's
 * exam.templates, exam.questions, exam.rubric and exam.comments: server/rest-routes.ts).
 */
export const examRoutes = [
  ...restRoutesOf(batchOperations),
  // The document's old order: a marker's queue, then the claims, then everyone's progress.
  ...restRoutesOf(markersBeforeProgress),
  ...restRoutesOf(claimOperations),
  ...restRoutesOf({ progress }),
  ...restRoutesOf(moderationOperations),
  ...restRoutesOf(releaseOperations),
  ...submissionRoutes,
  ...restRoutesOf(submissionOperations),
  ...restRoutesOf(markOperations),
  ...intakeRoutes,
  ...restRoutesOf(intakeBeforePrint),
  ...fileRoutes,
];

export const examTag = { name: "exam", description: "Exam templates, batches, scans, marks, results and CSV" };
