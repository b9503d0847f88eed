import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const GET = operationRoute("GET", "/api/school/people");

export const POST = operationRoute("POST", "/api/school/people");
