import { setAllocationsRoute } from "@/server/exam/routes/shared-marking";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const PUT = nextRoute(setAllocationsRoute);
