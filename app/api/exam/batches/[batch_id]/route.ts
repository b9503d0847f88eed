import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const PATCH = operationRoute("PATCH", "/api/exam/batches/{batch_id}");
