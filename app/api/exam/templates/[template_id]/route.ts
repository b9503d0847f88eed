import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const GET = operationRoute("GET", "/api/exam/templates/{template_id}");

export const PUT = operationRoute("PUT", "/api/exam/templates/{template_id}");

export const DELETE = operationRoute("DELETE", "/api/exam/templates/{template_id}");
