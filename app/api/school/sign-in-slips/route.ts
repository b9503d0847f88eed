import { nextRoute } from "@/server/http/route";
import { signInSlipsRoute } from "@/server/identity/routes/people";

export const dynamic = "force-dynamic";

export const POST = nextRoute(signInSlipsRoute);
