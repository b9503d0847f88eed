import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const GET = operationRoute("GET", "/api/exam/batches/{batch_id}/release");
export const PUT = operationRoute("PUT", "/api/exam/batches/{batch_id}/release");
export const DELETE = operationRoute("DELETE", "/api/exam/batches/{batch_id}/release");
