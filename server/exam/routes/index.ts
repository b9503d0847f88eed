import { intakeRoutes } from "../intake/routes";
import { batchRoutes } from "./batches";
import { fileRoutes } from "./files";
import { commentBankRoutes } from "./comment-bank";
import { moderationRoutes } from "./moderation";
import { rubricRoutes } from "./rubrics";
import { sharedMarkingRoutes } from "./shared-marking";
import { submissionRoutes } from "./submissions";
import { templateRoutes } from "./templates";

/** The /api/exam REST routes, in the order the OpenAPI document lists them. */
export const examRoutes = [
  ...templateRoutes,
  ...rubricRoutes,
  ...commentBankRoutes,
  ...batchRoutes,
  ...sharedMarkingRoutes,
  ...moderationRoutes,
  ...submissionRoutes,
  ...intakeRoutes,
  ...fileRoutes,
];

export const examTag = { name: "exam", description: "Exam templates, batches, scans, marks, results and CSV" };
