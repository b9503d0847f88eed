import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const PATCH = operationRoute("PATCH", "/api/exam/rubric-items/{item_id}");
export const DELETE = operationRoute("DELETE", "/api/exam/rubric-items/{item_id}");
