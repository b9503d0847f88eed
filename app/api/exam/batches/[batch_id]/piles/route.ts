import { uploadPileRoute } from "@/server/exam/intake/routes";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const POST = nextRoute(uploadPileRoute);
