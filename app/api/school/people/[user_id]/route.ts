import { nextRoute } from "@/server/http/route";
import { editPersonRoute, getPersonRoute } from "@/server/identity/routes/people";

export const dynamic = "force-dynamic";

export const GET = nextRoute(getPersonRoute);

export const PATCH = nextRoute(editPersonRoute);
