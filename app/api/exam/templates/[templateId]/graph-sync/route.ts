import { graphSyncOutput, syncTemplateGraph } from "@/server/graph/projection";
import { restRoute } from "@/server/http/rest";
import { validatedReply } from "@/server/http/validated-reply";

export const dynamic = "force-dynamic";

/** POST /api/exam/templates/{id}/graph-sync: the owner projects the template into the graph now. */
export const POST = restRoute<{ templateId: string }>(async ({ db, user, params }) => {
  const result = await syncTemplateGraph(db, user.id, params.templateId);
  return validatedReply(graphSyncOutput, result, "POST /api/exam/templates/{templateId}/graph-sync");
});
