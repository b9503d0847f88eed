import { restRoutesOf } from "../../operations/rest";
import { claimOperations } from "../claim-operations";
import { intakeRoutes } from "../intake/routes";
import { markerOperations } from "../marker-operations";
import { moderationOperations } from "../moderation-operations";
import { batchRoutes } from "./batches";
import { fileRoutes } from "./files";
import { commentBankRoutes } from "./comment-bank";
import { rubricRoutes } from "./rubrics";
import { submissionRoutes } from "./submissions";
import { templateRoutes } from "./templates";

const { progress, ...markersBeforeProgress } = markerOperations;

/** The /api/exam REST routes, in the order the OpenAPI document lists them. */
export const examRoutes = [
  ...templateRoutes,
  ...rubricRoutes,
  ...commentBankRoutes,
  ...batchRoutes,
  // The document's old order: a marker's queue, then the claims, then everyone's progress.
  ...restRoutesOf(markersBeforeProgress),
  ...restRoutesOf(claimOperations),
  ...restRoutesOf({ progress }),
  ...restRoutesOf(moderationOperations),
  ...submissionRoutes,
  ...intakeRoutes,
  ...fileRoutes,
];

export const examTag = { name: "exam", description: "Exam templates, batches, scans, marks, results and CSV" };
