import { setClassTeachersRoute } from "@/server/classroom/routes/classes";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const PUT = nextRoute(setClassTeachersRoute);
