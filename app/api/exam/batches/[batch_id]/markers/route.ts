import { listMarkersRoute, inviteMarkerRoute } from "@/server/exam/routes/shared-marking";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = nextRoute(listMarkersRoute);
export const POST = nextRoute(inviteMarkerRoute);
