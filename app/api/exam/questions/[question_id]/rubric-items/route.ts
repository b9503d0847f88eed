import { createRubricItemRoute } from "@/server/exam/routes/rubrics";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const POST = nextRoute(createRubricItemRoute);
