import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const PUT = operationRoute("PUT", "/database/timetable/classes/{class_id}/teachers");
