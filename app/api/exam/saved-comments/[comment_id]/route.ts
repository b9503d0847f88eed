import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const DELETE = operationRoute("DELETE", "/api/exam/saved-comments/{comment_id}");
