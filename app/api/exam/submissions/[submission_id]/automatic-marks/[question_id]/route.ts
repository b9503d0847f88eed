import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const DELETE = operationRoute("DELETE", "/api/exam/submissions/{submission_id}/automatic-marks/{question_id}");
