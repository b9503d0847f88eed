import { signOffRoute } from "@/server/exam/routes/moderation";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const POST = nextRoute(signOffRoute);
