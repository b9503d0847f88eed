import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const POST = operationRoute("POST", "/api/exam/templates/{template_id}/proposal");
