import { createTemplateRoute, listTemplatesRoute } from "@/server/exam/routes/templates";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = nextRoute(listTemplatesRoute);

export const POST = nextRoute(createTemplateRoute);
