import { markAbsentRoute, undoAbsentRoute } from "@/server/exam/routes/submissions";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const PUT = nextRoute(markAbsentRoute);
export const DELETE = nextRoute(undoAbsentRoute);
