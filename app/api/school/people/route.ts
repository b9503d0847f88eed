import { nextRoute } from "@/server/http/route";
import { addPersonRoute, listPeopleRoute } from "@/server/identity/routes/people";

export const dynamic = "force-dynamic";

export const GET = nextRoute(listPeopleRoute);

export const POST = nextRoute(addPersonRoute);
