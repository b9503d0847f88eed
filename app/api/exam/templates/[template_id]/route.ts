import { archiveTemplateRoute, getTemplateRoute, saveTemplateRoute } from "@/server/exam/routes/templates";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = nextRoute(getTemplateRoute);

export const PUT = nextRoute(saveTemplateRoute);

export const DELETE = nextRoute(archiveTemplateRoute);
