import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const GET = operationRoute("GET", "/api/exam/submissions/{submission_id}/answer-crops/{response_area_id}");
