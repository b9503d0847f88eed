import { uploadScanRoute } from "@/server/exam/routes/submissions";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const POST = nextRoute(uploadScanRoute);
