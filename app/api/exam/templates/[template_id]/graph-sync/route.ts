import { graphSyncRoute } from "@/server/exam/routes/graph-sync";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const POST = nextRoute(graphSyncRoute);
