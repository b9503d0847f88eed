import { graphChildrenRoute } from "@/server/graph/routes";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = nextRoute(graphChildrenRoute);
