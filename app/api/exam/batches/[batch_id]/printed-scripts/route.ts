import { printScriptsRoute } from "@/server/exam/intake/routes/print";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const POST = nextRoute(printScriptsRoute);
