import { canvasRoute } from "@/server/classroom/snapshot-route";
import {
  parseSnapshotPath,
  resolveSnapshotAccess,
  snapshotLocationInput,
  storeSnapshot,
  storeSnapshotOutput,
} from "@/server/classroom/snapshots";
import { validatedReply } from "@/server/http/validated-reply";
import { asUser } from "@/server/db/rls";
import { env } from "@/server/env";
import { readBoundedBody } from "@/server/http/request-body";

export const dynamic = "force-dynamic";

/**
 * PUT /put_canvas_node_file?path=<bucket>/<node_type>/<node_id>&db_name=… with the snapshot JSON (what
 * GET /get_canvas_node_file returns) as the body. Same access rules as the read; calendar canvases are
 * read-only. Replies {status: "success", path, bytes}.
 */
export const PUT = canvasRoute(async ({ db, url, request, authenticate }) => {
  const location = snapshotLocationInput.parse({ path: url.searchParams.get("path") ?? undefined, db_name: url.searchParams.get("db_name") ?? undefined });
  parseSnapshotPath(location.path); // rule 1 comes before the token rule
  const user = await authenticate();
  const address = await asUser(db, user.id, (tx) => resolveSnapshotAccess(tx, user.id, location, "write"));
  const body = await readBoundedBody(request, env().MAX_SNAPSHOT_BYTES);
  const reply = await storeSnapshot(address, body);
  return validatedReply(storeSnapshotOutput, reply, "PUT /put_canvas_node_file");
});
