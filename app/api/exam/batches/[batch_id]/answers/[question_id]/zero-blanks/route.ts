import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const POST = operationRoute("POST", "/api/exam/batches/{batch_id}/answers/{question_id}/zero-blanks");
