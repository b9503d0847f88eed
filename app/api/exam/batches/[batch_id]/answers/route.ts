import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const GET = operationRoute("GET", "/api/exam/batches/{batch_id}/answers");
