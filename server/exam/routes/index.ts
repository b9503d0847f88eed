import { restRoutesOf } from "../../operations/rest";
import { claimOperations } from "../claim-operations";
import { intakeRoutes } from "../intake/routes";
import { markerOperations } from "../marker-operations";
import { moderationOperations } from "../moderation-operations";
import { releaseOperations } from "../returns/release-operations";
import { batchRoutes } from "./batches";
import { fileRoutes } from "./files";
import { submissionRoutes } from "./submissions";

const { progress, ...markersBeforeProgress } = markerOperations;

/**
 * The /api/exam REST routes still written by hand, and the faces of exam.markers, exam.claims and
 * exam.moderation, in the order the OpenAPI document lists them (after the faces of the catalogue's
 * exam.templates, exam.questions, exam.rubric and exam.comments: server/rest-routes.ts).
 */
export const examRoutes = [
  ...batchRoutes,
  // The document's old order: a marker's queue, then the claims, then everyone's progress.
  ...restRoutesOf(markersBeforeProgress),
  ...restRoutesOf(claimOperations),
  ...restRoutesOf({ progress }),
  ...restRoutesOf(moderationOperations),
  ...restRoutesOf(releaseOperations),
  ...submissionRoutes,
  ...intakeRoutes,
  ...fileRoutes,
];

export const examTag = { name: "exam", description: "Exam templates, batches, scans, marks, results and CSV" };
