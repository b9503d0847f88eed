import { graphChildrenRoute } from "@/server/classroom/routes/graph-children";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = nextRoute(graphChildrenRoute);
