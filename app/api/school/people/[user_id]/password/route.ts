import { nextRoute } from "@/server/http/route";
import { resetPasswordRoute } from "@/server/identity/routes/people";

export const dynamic = "force-dynamic";

export const POST = nextRoute(resetPasswordRoute);
