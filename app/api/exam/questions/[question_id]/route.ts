import { editMarkSchemeRoute } from "@/server/exam/routes/templates";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const PATCH = nextRoute(editMarkSchemeRoute);
