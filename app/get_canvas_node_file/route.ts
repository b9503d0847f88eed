import { canvasRoute } from "@/server/classroom/snapshot-route";
import { loadSnapshot, parseSnapshotPath, resolveSnapshotAccess, snapshotLocationInput } from "@/server/classroom/snapshots";
import { asUser } from "@/server/db/rls";

export const dynamic = "force-dynamic";

/**
 * GET /get_canvas_node_file?path=<bucket>/<node_type>/<node_id>&db_name=…: the stored canvas snapshot,
 * or the empty canvas when there is none (header X-Snapshot-Source: stored | default).
 */
export const GET = canvasRoute(async ({ db, url, authenticate }) => {
  const location = snapshotLocationInput.parse({ path: url.searchParams.get("path") ?? undefined, db_name: url.searchParams.get("db_name") ?? undefined });
  parseSnapshotPath(location.path); // rule 1 comes before the token rule
  const user = await authenticate();
  const address = await asUser(db, user.id, (tx) => resolveSnapshotAccess(tx, user.id, location, "read"));
  const { snapshot, source } = await loadSnapshot(address);
  return Response.json(snapshot, { headers: { "cache-control": "no-store", "x-snapshot-source": source } });
});
