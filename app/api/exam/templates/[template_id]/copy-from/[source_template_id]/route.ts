import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const GET = operationRoute("GET", "/api/exam/templates/{template_id}/copy-from/{source_template_id}");
export const POST = operationRoute("POST", "/api/exam/templates/{template_id}/copy-from/{source_template_id}");
