import { intakeRoutes } from "../intake/routes";
import { batchRoutes } from "./batches";
import { fileRoutes } from "./files";
import { moderationRoutes } from "./moderation";
import { sharedMarkingRoutes } from "./shared-marking";
import { submissionRoutes } from "./submissions";

/**
 * The /api/exam REST routes still written by hand, in the order the OpenAPI document lists them (after the
 * faces of the catalogue's exam.templates, exam.questions, exam.rubric and exam.comments: server/rest-routes.ts).
 */
export const examRoutes = [
  ...batchRoutes,
  ...sharedMarkingRoutes,
  ...moderationRoutes,
  ...submissionRoutes,
  ...intakeRoutes,
  ...fileRoutes,
];

export const examTag = { name: "exam", description: "Exam templates, batches, scans, marks, results and CSV" };
