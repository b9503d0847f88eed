import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const DELETE = operationRoute("DELETE", "/api/exam/batches/{batch_id}/markers/{user_id}");
