import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const GET = operationRoute("GET", "/api/exam/questions/{question_id}/comments");
export const POST = operationRoute("POST", "/api/exam/questions/{question_id}/comments");
