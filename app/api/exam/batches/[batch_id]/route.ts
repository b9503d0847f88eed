import { updateBatchRoute } from "@/server/exam/routes/batches";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const PATCH = nextRoute(updateBatchRoute);
