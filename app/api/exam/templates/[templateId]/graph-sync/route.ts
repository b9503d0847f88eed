import { graphSyncOutput, syncTemplateGraph } from "@/server/graph/projection";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

/** POST /api/exam/templates/{id}/graph-sync: the owner projects the template into the graph now. */
export const POST = restRoute<{ templateId: string }>(async ({ db, user, params }) => {
  const result = await syncTemplateGraph(db, user.id, params.templateId);
  // safeParse: a reply that breaks its own schema is our bug (500), not the client's (400).
  const reply = graphSyncOutput.safeParse(result);
  if (!reply.success) throw new Error(`POST …/graph-sync reply does not match its schema: ${reply.error.message}`);
  return reply.data;
});
