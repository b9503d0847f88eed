import { z } from "zod";
import { text } from "../../lib/rules/input-rules";
import { parseJsonBytes } from "../http/request-body";
import type { Db, Tx } from "../db/client";
import { asUser } from "../db/rls";
import { env } from "../env";
import { AppError } from "../errors";
import { formatByteSize } from "../../lib/rules/byte-size";
import { graphDatabaseNameRule, graphDatabaseNameShape } from "../../lib/rules/graph-database-name";
import { objectStorage } from "../storage/configured-storage";
import { isObjectNotFound, putObjectBytes, readObjectBytes } from "../storage/object-storage";
import { type CanvasSnapshot, emptyCanvasSnapshot, snapshotStructureProblem } from "./canvas-snapshot-content";
import { findCallerGraphDatabases, globalGraphDatabase, isOwnGraphDatabase } from "../graph/access";

/**
 * Canvas snapshots: `GET /get_canvas_node_file` and `PUT /put_canvas_node_file`, both addressed by
 * `path=<bucket>/<node_type>/<node_id>` and `db_name`. The object lives at
 * `<db_name>/<node_type>/<node_id>/canvas_file.json` in the snapshots bucket of the storage port: a
 * snapshot belongs to exactly one graph database, and only callers with that database in scope reach it.
 */

const personalNodeTypes = ["User", "Teacher", "Developer", "SuperAdmin", "UserTeacherTimetable"] as const;
const calendarNodeTypes = ["CalendarYear", "CalendarMonth", "CalendarWeek", "CalendarDay", "CalendarTimeChunk"] as const;

/** Longest path part accepted: far above any node type or id, far below file-system limits. */
const MAX_SNAPSHOT_PATH_PART = 128;
const nodePartShape = /^[A-Za-z0-9_-]+$/;

/** A graph database name (part of the storage key, so nothing else may pass). */
export const graphDatabaseNameInput = z
  .string("db_name is required")
  .min(1, "db_name is required")
  .regex(graphDatabaseNameShape, `db_name must be a graph database name: ${graphDatabaseNameRule}`);

export const snapshotLocationInput = z.object({
  path: text(1024, "path is required")
    .min(1, "path is required")
    .describe("<bucket>/<node_type>/<node_id>; the bucket must be SNAPSHOT_BUCKET (default cc.public.snapshots); node_type and node_id: letters, digits, _ and -"),
  db_name: graphDatabaseNameInput.describe(
    "The graph database the snapshot belongs to: one of the caller's (personal, institute or curriculum; the global database only to read a calendar canvas). The same path in another database is another canvas.",
  ),
});
export type SnapshotLocationInput = z.input<typeof snapshotLocationInput>;

/** What the path names: the canvas of one node, in the snapshots bucket. */
export interface SnapshotPath {
  bucket: string;
  nodeType: string;
  nodeId: string;
}

/** Where a snapshot lives once the caller's access is settled. */
export interface SnapshotAddress extends SnapshotPath {
  /** The graph database the snapshot belongs to. */
  dbName: string;
  /** The object key inside the bucket: `<db_name>/<node_type>/<node_id>/canvas_file.json`. */
  key: string;
}

/**
 * Contract rule 1 (docs/spec/classroom-api.md "Canvas snapshot read rules" 1), in its order: three non-empty parts
 * (400), the one snapshots bucket (403), no `.`/`..`
 * part and no `..` inside a part (400), node_type and node_id of letters, digits, `_` and `-` only (400).
 * The character rule also refuses NUL, backslashes, percent signs and Unicode look-alikes of `.` and `/`.
 */
export function parseSnapshotPath(path: string): SnapshotPath {
  const parts = path.split("/");
  if (parts.length !== 3 || parts.some((part) => part.length === 0)) {
    throw new AppError("invalid", "path must have the form <bucket>/<node_type>/<node_id>", "path");
  }
  const [bucket, nodeType, nodeId] = parts as [string, string, string];
  if (bucket !== env().SNAPSHOT_BUCKET) throw new AppError("forbidden", "Snapshots can only be read from the snapshots bucket", "path");
  if (parts.some((part) => part === "." || part === ".." || part.includes(".."))) {
    throw new AppError("invalid", "path parts must not be '.' or '..' or contain '..'", "path");
  }
  for (const [name, part] of [["node_type", nodeType], ["node_id", nodeId]] as const) {
    if (part.length > MAX_SNAPSHOT_PATH_PART) throw new AppError("invalid", `${name} is too long (at most ${MAX_SNAPSHOT_PATH_PART} characters)`, "path");
    if (!nodePartShape.test(part)) throw new AppError("invalid", `${name} may contain only letters, digits, '_' and '-'`, "path");
  }
  return { bucket, nodeType, nodeId };
}

export type SnapshotAccess = "read" | "write";

const isPersonal = (nodeType: string) => (personalNodeTypes as readonly string[]).includes(nodeType);
const isCalendar = (nodeType: string) => (calendarNodeTypes as readonly string[]).includes(nodeType);

/**
 * Contract rules 1 and 3–5 (docs/spec/classroom-api.md "Canvas snapshot read rules") for the caller (rule 6, the
 * token, is checked by the route before this runs):
 * where the snapshot lives, or 400/403. Read as the caller: their graph databases come from their own
 * user row and the institutes RLS shows them.
 *
 * db_name is always one of the caller's databases (the global one only to read a calendar canvas), and
 * it is part of the object key: naming one's own database can never reach another database's canvas.
 * Personal node types also need the caller's own node id or the caller's personal database (rule 3).
 */
export async function resolveSnapshotAccess(
  tx: Tx,
  userId: string,
  input: SnapshotLocationInput,
  access: SnapshotAccess,
): Promise<SnapshotAddress> {
  const { path, db_name } = snapshotLocationInput.parse(input);
  const location = parseSnapshotPath(path);
  const databases = await findCallerGraphDatabases(tx, userId);
  const { nodeType, nodeId } = location;
  if (isPersonal(nodeType)) {
    if (!isOwnGraphDatabase(databases, db_name)) throw new AppError("forbidden", "This graph database is outside your scope");
    if (nodeId.toLowerCase() !== userId.toLowerCase() && db_name !== databases.personal) {
      throw new AppError("forbidden", `A ${nodeType} canvas belongs to its user: not yours`);
    }
  } else if (isCalendar(nodeType)) {
    if (access === "write") throw new AppError("forbidden", "Calendar canvases are read-only");
    if (db_name !== globalGraphDatabase() && !isOwnGraphDatabase(databases, db_name)) {
      throw new AppError("forbidden", "This graph database is outside your scope");
    }
  } else if (!isOwnGraphDatabase(databases, db_name)) {
    throw new AppError("forbidden", "This graph database is outside your scope");
  }
  return { ...location, dbName: db_name, key: `${db_name}/${nodeType}/${nodeId}/canvas_file.json` };
}

export interface LoadedSnapshot {
  snapshot: CanvasSnapshot;
  /** `stored` when the object was read; `default` when it was missing, malformed or invalid. */
  source: "stored" | "default";
}

/** Reads a snapshot; a missing, malformed or structurally invalid one reads as the empty canvas. */
export async function loadSnapshot(address: SnapshotAddress): Promise<LoadedSnapshot> {
  let bytes: Buffer;
  try {
    bytes = await readObjectBytes(objectStorage(), address.bucket, address.key);
  } catch (error) {
    if (isObjectNotFound(error)) return { snapshot: emptyCanvasSnapshot(), source: "default" };
    throw new AppError("upstream", "The snapshot store could not be read");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    return { snapshot: emptyCanvasSnapshot(), source: "default" };
  }
  if (snapshotStructureProblem(parsed) !== null) return { snapshot: emptyCanvasSnapshot(), source: "default" };
  return { snapshot: parsed as CanvasSnapshot, source: "stored" };
}

/**
 * Validates and stores a snapshot: 413 above MAX_SNAPSHOT_BYTES, 400 (with the reason) when it is not
 * JSON or not a valid snapshot. The object is replaced atomically (the storage port's promise), so a
 * reader sees the old version or the new one, never half a file.
 */
export async function storeSnapshot(address: SnapshotAddress, bytes: Uint8Array) {
  const max = env().MAX_SNAPSHOT_BYTES;
  if (bytes.byteLength > max) throw new AppError("too_large", `The snapshot is too large: the largest accepted is ${formatByteSize(max)}`);
  if (bytes.byteLength === 0) throw new AppError("invalid", "The body must be the snapshot JSON");
  const parsed = parseJsonBytes(bytes);
  const problem = snapshotStructureProblem(parsed);
  if (problem) throw new AppError("invalid", `Invalid snapshot: ${problem}`);
  try {
    await putObjectBytes(objectStorage(), address.bucket, address.key, bytes, { contentType: "application/json" });
  } catch {
    throw new AppError("upstream", "The snapshot could not be stored");
  }
  return { status: "success" as const, path: `${address.bucket}/${address.nodeType}/${address.nodeId}`, bytes: bytes.byteLength };
}

export const storeSnapshotOutput = z.object({ status: z.literal("success"), path: z.string(), bytes: z.number().int() });

/**
 * The canvas at a location, for a caller who may read it: access judged as them (row-level security),
 * the object read after that transaction has ended. The web app's read and the REST read (once its
 * path and token rules have passed).
 */
export async function readSnapshotAs(db: Db, userId: string, location: SnapshotLocationInput): Promise<LoadedSnapshot> {
  const address = await asUser(db, userId, (tx) => resolveSnapshotAccess(tx, userId, location, "read"));
  return loadSnapshot(address);
}

/** The web app's write of a canvas (already parsed JSON): access judged as the caller, then stored as the REST write stores its body. */
export async function writeSnapshotAs(db: Db, userId: string, location: SnapshotLocationInput, snapshot: unknown) {
  const address = await asUser(db, userId, (tx) => resolveSnapshotAccess(tx, userId, location, "write"));
  return storeSnapshot(address, new TextEncoder().encode(JSON.stringify(snapshot) ?? ""));
}

/** The REST write of a canvas: access judged as the caller first, then the body read (bounded by MAX_SNAPSHOT_BYTES) and stored. */
export async function writeSnapshotUploadAs(db: Db, userId: string, location: SnapshotLocationInput, upload: { read(maxBytes: number): Promise<Uint8Array> }) {
  const address = await asUser(db, userId, (tx) => resolveSnapshotAccess(tx, userId, location, "write"));
  return storeSnapshot(address, await upload.read(env().MAX_SNAPSHOT_BYTES));
}
