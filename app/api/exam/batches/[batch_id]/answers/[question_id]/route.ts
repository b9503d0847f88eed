import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const PUT = operationRoute("PUT", "/api/exam/batches/{batch_id}/answers/{question_id}");
