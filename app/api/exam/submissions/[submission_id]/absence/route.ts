import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const PUT = operationRoute("PUT", "/api/exam/submissions/{submission_id}/absence");
export const DELETE = operationRoute("DELETE", "/api/exam/submissions/{submission_id}/absence");
