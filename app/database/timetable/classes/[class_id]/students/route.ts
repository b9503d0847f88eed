import { listClassStudentsRoute } from "@/server/classroom/routes/classes";
import { nextRoute } from "@/server/http/route";
import { operationRoute } from "@/server/operation-catalogue";

export const dynamic = "force-dynamic";

export const GET = nextRoute(listClassStudentsRoute);

export const POST = operationRoute("POST", "/database/timetable/classes/{class_id}/students");
