import { issueSyncTokenRoute } from "@/server/classroom/routes/canvas";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const POST = nextRoute(issueSyncTokenRoute);
