import { uploadTemplateFileRoute } from "@/server/exam/routes/files";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const POST = nextRoute(uploadTemplateFileRoute);
