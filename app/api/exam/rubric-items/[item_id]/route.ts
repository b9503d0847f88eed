import { deleteRubricItemRoute, editRubricItemRoute } from "@/server/exam/routes/rubrics";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const PATCH = nextRoute(editRubricItemRoute);
export const DELETE = nextRoute(deleteRubricItemRoute);
