import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const PUT = operationRoute("PUT", "/api/exam/marks/{mark_id}");
