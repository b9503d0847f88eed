import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const GET = operationRoute("GET", "/api/school/people/{user_id}");

export const PATCH = operationRoute("PATCH", "/api/school/people/{user_id}");
