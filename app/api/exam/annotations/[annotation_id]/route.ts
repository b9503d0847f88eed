import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const PUT = operationRoute("PUT", "/api/exam/annotations/{annotation_id}");
export const DELETE = operationRoute("DELETE", "/api/exam/annotations/{annotation_id}");
