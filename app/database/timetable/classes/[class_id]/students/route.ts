import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const GET = operationRoute("GET", "/database/timetable/classes/{class_id}/students");

export const POST = operationRoute("POST", "/database/timetable/classes/{class_id}/students");
