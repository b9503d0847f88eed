import { z } from "zod";
import { fileReply, replyWith, streamedBody } from "../http/route";
import { defineOperation } from "../operations/define";
import { authenticateCanvasCaller } from "./canvas-caller";
import { parseSnapshotPath, readSnapshotAs, snapshotLocationInput, storeSnapshotOutput, writeSnapshotAs, writeSnapshotUploadAs } from "./snapshots";
import { issueSyncToken, issueSyncTokenInput, syncTokenOutput } from "./sync-tokens";

/**
 * Canvas snapshots and sync tokens: `snapshots.<name>` over tRPC for the web app, and the contract's REST
 * paths with the same rules. Their contract (docs/spec/classroom-api.md "Canvas snapshot read rules")
 * puts the path rule before the token rule (rule 6: 403 without a token or for one without a user id),
 * so the REST faces authenticate after the path is judged (`deferredAuthentication`). The REST write
 * streams its body (`putCanvasSnapshot`, REST only) beside tRPC's `put`, whose snapshot is in the input.
 */

const tags = ["classroom"];

/** The contract's rule order: the path (rule 1), then the token (rule 6: authenticateCanvasCaller). */
const canvasAuthentication = { judgeFirst: ({ path }: { path: string }) => parseSnapshotPath(path), authenticate: authenticateCanvasCaller };

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

/** A room and a database name: a few hundred bytes; anything much larger is not a token request. */
const MAX_SYNC_TOKEN_REQUEST_BYTES = 16 * 1024;

export const snapshotOperations = {
  get: defineOperation({
    kind: "query",
    input: snapshotLocationInput,
    output: z.object({ snapshot: z.record(z.string(), z.unknown()), source: z.enum(["stored", "default"]) }),
    // Access is judged in a transaction as the caller; the object store is read after it has ended.
    transaction: "database",
    role: "signed-in",
    handler: ({ db, caller, input }) => readSnapshotAs(db, caller.id, input),
    rest: {
      method: "GET",
      path: "/get_canvas_node_file",
      operationId: "getCanvasSnapshot",
      tags,
      summary: "Load a canvas snapshot",
      description:
        "A missing, malformed or structurally invalid snapshot answers an empty canvas (one page); header X-Snapshot-Source says stored or default. " +
        "403 without a token or with a token without a user id.",
      deferredAuthentication: canvasAuthentication,
      file: fileReply("application/json", "The snapshot, or the empty canvas", snapshotSchema),
      respond: ({ snapshot, source }) => Response.json(snapshot, { headers: { "cache-control": "no-store", "x-snapshot-source": source } }),
      errors: snapshotErrors,
    },
  }),

  put: defineOperation({
    kind: "mutation",
    input: snapshotLocationInput.extend({ snapshot: z.unknown() }),
    output: storeSnapshotOutput,
    transaction: "database",
    role: "signed-in",
    handler: ({ db, caller, input }) => writeSnapshotAs(db, caller.id, input, input.snapshot),
  }),

  /** `put` as the contract's REST write: the snapshot is the body, read only once the caller may write there, and bounded while reading. */
  putCanvasSnapshot: defineOperation({
    kind: "mutation",
    input: snapshotLocationInput,
    output: storeSnapshotOutput,
    transaction: "database",
    role: "signed-in",
    trpc: false,
    handler: ({ db, caller, input, upload }) => writeSnapshotUploadAs(db, caller.id, input, upload),
    rest: {
      method: "PUT",
      path: "/put_canvas_node_file",
      operationId: "putCanvasSnapshot",
      tags,
      summary: "Store a canvas snapshot (replaces it atomically)",
      description: "Same access rules as the read; calendar node types are read-only (403). At most MAX_SNAPSHOT_BYTES (413).",
      deferredAuthentication: canvasAuthentication,
      streamedBody: streamedBody("application/json", snapshotSchema),
      reply: "OK",
      errors: { ...snapshotErrors, 413: "Body larger than MAX_SNAPSHOT_BYTES" },
    },
  }),

  syncToken: defineOperation({
    kind: "mutation",
    input: issueSyncTokenInput,
    output: syncTokenOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => issueSyncToken(tx, caller.id, input),
    rest: {
      method: "POST",
      path: "/sync/token",
      operationId: "issueSyncToken",
      tags,
      summary: "A short-lived token for the real-time sync service, for one canvas room the caller may write",
      description:
        "HS256 JWT signed with SYNC_TOKEN_SECRET; claims sub, room, db_name (the room's graph database), scope (canvas:write), iat, exp, aud (markbook-sync), iss. " +
        "Lifetime SYNC_TOKEN_TTL_SECONDS (default 300).",
      // The room is judged as a snapshot's path is, before the token.
      deferredAuthentication: { judgeFirst: ({ room }) => parseSnapshotPath(room), authenticate: authenticateCanvasCaller },
      maxBytes: MAX_SYNC_TOKEN_REQUEST_BYTES,
      example: '{"room": "<bucket>/<node_type>/<node_id>", "db_name": "…"}',
      reply: "OK",
      respond: (issued) => replyWith(200, issued, { "cache-control": "no-store" }),
      errors: { 400: "Invalid request (see detail)", 403: "No token, a token without a user id, or a room the caller may not write", 413: "Body larger than 16 KiB" },
    },
  }),
};
