import { canvasRoute } from "@/server/classroom/snapshot-route";
import { parseSnapshotPath } from "@/server/classroom/snapshots";
import { issueSyncToken, issueSyncTokenInput, syncTokenOutput } from "@/server/classroom/sync-tokens";
import { validatedReply } from "@/server/http/validated-reply";
import { asUser } from "@/server/db/rls";
import { readJsonBody } from "@/server/http/request-body";

export const dynamic = "force-dynamic";

/** A room and a database name: a few hundred bytes; anything much larger is not a token request. */
const MAX_BODY_BYTES = 16 * 1024;

/**
 * POST /sync/token {room: "<bucket>/<node_type>/<node_id>", db_name}: a short-lived token for the
 * real-time sync service, for a canvas room the caller may write.
 */
export const POST = canvasRoute(async ({ db, request, authenticate }) => {
  const body = await readJsonBody(request, { maxBytes: MAX_BODY_BYTES, example: '{"room": "<bucket>/<node_type>/<node_id>", "db_name": "…"}' });
  const input = issueSyncTokenInput.parse(body);
  parseSnapshotPath(input.room); // the path rule comes before the token rule, as for snapshots
  const user = await authenticate();
  const issued = await asUser(db, user.id, (tx) => issueSyncToken(tx, user.id, input));
  return Response.json(validatedReply(syncTokenOutput, issued, "POST /sync/token"), { headers: { "cache-control": "no-store" } });
});
