import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const GET = operationRoute("GET", "/database/timetable/classes/school/students");
