import { restRoutesOf } from "../../operations/rest";
import { batchOperations } from "../batch-operations";
import { claimOperations } from "../claim-operations";
import { intakeRoutes } from "../intake/routes";
import { markerOperations } from "../marker-operations";
import { moderationOperations } from "../moderation-operations";
import { fileRoutes } from "./files";
import { markOperations } from "../mark-operations";
import { submissionOperations } from "../submission-operations";
import { submissionRoutes } from "./submissions";

const { progress, ...markersBeforeProgress } = markerOperations;

/**
 * The /api/exam REST routes still written by hand, and the faces of exam.markers, exam.claims and
 * exam.moderation, in the order the OpenAPI document lists them (after the faces of the catalogue's
 * exam.templates, exam.questions, exam.rubric and exam.comments: server/rest-routes.ts).
 */
export const examRoutes = [
  ...restRoutesOf(batchOperations),
  // The document's old order: a marker's queue, then the claims, then everyone's progress.
  ...restRoutesOf(markersBeforeProgress),
  ...restRoutesOf(claimOperations),
  ...restRoutesOf({ progress }),
  ...restRoutesOf(moderationOperations),
  ...submissionRoutes,
  ...restRoutesOf(submissionOperations),
  ...restRoutesOf(markOperations),
  ...intakeRoutes,
  ...fileRoutes,
];

export const examTag = { name: "exam", description: "Exam templates, batches, scans, marks, results and CSV" };
