import { asUser } from "../../db/rls";
import { env } from "../../env";
import { readBoundedBody } from "../../http/request-body";
import { defineRoute, fileReply, jsonBody, jsonReply, replyWith, streamedBody } from "../../http/route";
import { authenticateCanvasCaller } from "../canvas-caller";
import { parseSnapshotPath, readSnapshotAs, resolveSnapshotAccess, snapshotLocationInput, storeSnapshot, storeSnapshotOutput } from "../snapshots";
import { issueSyncToken, issueSyncTokenInput, syncTokenOutput } from "../sync-tokens";

/**
 * Canvas snapshots and sync tokens. Their contract (docs/spec/classroom-api.md "Canvas snapshot read rules") puts the
 * path rule before the token rule (rule 6:
 * 403 without a token or for one without a user id), so the handler authenticates after the path check.
 */

const tags = ["classroom"];
const auth = { deferred: authenticateCanvasCaller };

const snapshotSchema = {
  type: "object",
  description:
    "A tldraw canvas snapshot as getSnapshot(editor.store) produces it: {document: {store, schema}, session}. Valid when it has " +
    "document and session (objects) and either document.schema or a root schemaVersion.",
  required: ["document", "session"],
  properties: {
    document: { type: "object", properties: { store: { type: "object" }, schema: { type: "object" } } },
    session: { type: "object" },
    schemaVersion: { type: "integer" },
  },
};

const snapshotErrors = {
  400: "Invalid request (see detail)",
  403: "No token, a token without a user id, or a canvas outside the caller's scope",
  502: "Storage failure",
};

export const getSnapshotRoute = defineRoute({
  method: "GET",
  path: "/get_canvas_node_file",
  operationId: "getCanvasSnapshot",
  tags,
  summary: "Load a canvas snapshot",
  description:
    "A missing, malformed or structurally invalid snapshot answers an empty canvas (one page); header X-Snapshot-Source says stored or default. " +
    "403 without a token or with a token without a user id.",
  auth,
  query: snapshotLocationInput,
  replies: { 200: fileReply("application/json", "The snapshot, or the empty canvas", snapshotSchema) },
  errors: snapshotErrors,
  handler: async ({ db, query, authenticate }) => {
    parseSnapshotPath(query.path); // rule 1 comes before the token rule
    const user = await authenticate();
    const { snapshot, source } = await readSnapshotAs(db, user.id, query);
    return Response.json(snapshot, { headers: { "cache-control": "no-store", "x-snapshot-source": source } });
  },
});

export const putSnapshotRoute = defineRoute({
  method: "PUT",
  path: "/put_canvas_node_file",
  operationId: "putCanvasSnapshot",
  tags,
  summary: "Store a canvas snapshot (replaces it atomically)",
  description: "Same access rules as the read; calendar node types are read-only (403). At most MAX_SNAPSHOT_BYTES (413).",
  auth,
  query: snapshotLocationInput,
  // Streamed: read only once the caller may write there, and bounded while reading.
  body: streamedBody("application/json", snapshotSchema),
  replies: { 200: jsonReply(storeSnapshotOutput, "OK") },
  errors: { ...snapshotErrors, 413: "Body larger than MAX_SNAPSHOT_BYTES" },
  handler: async ({ db, request, query, authenticate }) => {
    parseSnapshotPath(query.path); // rule 1 comes before the token rule
    const user = await authenticate();
    const address = await asUser(db, user.id, (tx) => resolveSnapshotAccess(tx, user.id, query, "write"));
    return storeSnapshot(address, await readBoundedBody(request, env().MAX_SNAPSHOT_BYTES));
  },
});

/** A room and a database name: a few hundred bytes; anything much larger is not a token request. */
const MAX_SYNC_TOKEN_REQUEST_BYTES = 16 * 1024;

export const issueSyncTokenRoute = defineRoute({
  method: "POST",
  path: "/sync/token",
  operationId: "issueSyncToken",
  tags,
  summary: "A short-lived token for the real-time sync service, for one canvas room the caller may write",
  description:
    "HS256 JWT signed with SYNC_TOKEN_SECRET; claims sub, room, db_name (the room's graph database), scope (canvas:write), iat, exp, aud (markbook-sync), iss. " +
    "Lifetime SYNC_TOKEN_TTL_SECONDS (default 300).",
  auth,
  body: jsonBody(issueSyncTokenInput, { maxBytes: MAX_SYNC_TOKEN_REQUEST_BYTES, example: '{"room": "<bucket>/<node_type>/<node_id>", "db_name": "…"}' }),
  replies: { 200: jsonReply(syncTokenOutput, "OK") },
  errors: { 400: "Invalid request (see detail)", 403: "No token, a token without a user id, or a room the caller may not write", 413: "Body larger than 16 KiB" },
  handler: async ({ db, body, authenticate }) => {
    parseSnapshotPath(body.room); // the path rule comes before the token rule, as for snapshots
    const user = await authenticate();
    const issued = await asUser(db, user.id, (tx) => issueSyncToken(tx, user.id, body));
    return replyWith(200, issued, { "cache-control": "no-store" });
  },
});

export const canvasRoutes = [getSnapshotRoute, putSnapshotRoute, issueSyncTokenRoute];
