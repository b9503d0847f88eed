import { exportResultsXlsxRoute } from "@/server/exam/routes/batches";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = nextRoute(exportResultsXlsxRoute);
