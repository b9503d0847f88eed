import { rosterImportRoute } from "@/server/identity/routes/roster-imports";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const POST = nextRoute(rosterImportRoute);
