import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import type { z } from "zod";
import { type Db, rowsOf } from "../db/client";
import { asUser } from "../db/rls";
import { graphStore } from "../graph/index";
import { bootstrapProfileOutput } from "../identity/bootstrap-profile";
import { getBootstrapProfile } from "../identity/users";
import { listSchoolClasses, schoolClassListOutput } from "./classes";
import { classStudentsOutput, listClassStudents, listClassStudentsInput } from "./enrollments";
import type { CallerGraphDatabases } from "../graph/access";
import { type GraphChildrenInput, authorizeGraphChildren, graphChildrenInput, graphChildrenOutput, listGraphChildren, readGraphChildren } from "../graph/children";
import { listSchoolStudents, schoolStudentsOutput } from "./school-students";
import { validatedReply } from "../http/validated-reply";

/**
 * The reply cache of the big read-mostly REST lists: a school's students and classes, a class's roster,
 * graph children and the caller's bootstrap profile.
 *
 * - The domain functions stay the only source of a reply: on a miss the list is computed as the caller,
 *   under row-level security, checked against its schema and serialised once; the cache keeps the JSON
 *   bytes and a strong ETag (SHA-256 of the bytes) and answers `If-None-Match` with 304.
 * - A reply is shared only between callers who see the same rows under the policies. What decides the
 *   lists is the caller's school and their memberships (staff or not, per institute), so a shared entry
 *   is keyed by exactly that, and only staff of the school share one: a student's reply (themself only)
 *   is computed for them every time, never taken from a staff entry. The bootstrap profile is per user.
 *   Graph children depend on the graph alone once the caller passed the access rule.
 * - An entry is used only while the version the DATABASE keeps for what it read is unchanged
 *   (reply_cache_versions, bumped by triggers in the writing transaction: migration 0005), so every app
 *   process and the CLI stay coherent. Each request reads the versions and the caller's memberships in
 *   one statement (app.reply_cache_caller_state). Graph children are cached with the embedded graph
 *   store only: writes to Neo4j bump no version.
 * - Memory is bounded: a least-recently-used list of at most REPLY_CACHE_MAX_BYTES of reply bytes per
 *   database handle; one reply larger than a quarter of that is served but not kept. Concurrent misses of
 *   one entry share one computation.
 */

export const REPLY_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/** Bytes an entry counts for besides its body: key, ETag, bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 256;

export interface CachedReply {
  /** The serialised JSON. Read-only: every response sends these very bytes (see respond). */
  bytes: Uint8Array;
  /** The length of `bytes` when written: a body chunk that was transferred (detached) reads 0. */
  length: number;
  etag: string;
  /** Bytes the entry counts for in the memory bound. */
  size: number;
}

interface CacheEntry extends CachedReply {
  version: string;
}

/** A map in least-recently-used order, bounded by the bytes of its entries. */
export class ByteBoundedLru<Entry extends { size: number }> {
  private readonly entries = new Map<string, Entry>();
  private totalBytes = 0;

  constructor(readonly maxBytes: number) {}

  get bytes(): number {
    return this.totalBytes;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      // Most recently used goes last.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: Entry): void {
    this.delete(key);
    if (entry.size > this.maxBytes / 4) return; // it would push out most of the others
    this.entries.set(key, entry);
    this.totalBytes += entry.size;
    for (const [oldestKey] of this.entries) {
      if (this.totalBytes <= this.maxBytes) break;
      this.delete(oldestKey);
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.totalBytes -= entry.size;
  }
}

interface ReplyCache {
  entries: ByteBoundedLru<CacheEntry>;
  /** Computations under way, by key and version. */
  inFlight: Map<string, Promise<CachedReply>>;
}

// One cache per database handle (tests open many databases in one process), shared by the Next.js
// bundles of this process, which load their own copies of this module.
const slot = globalThis as typeof globalThis & { __markbookReplyCaches?: WeakMap<Db, ReplyCache> };

function replyCacheOf(db: Db): ReplyCache {
  const caches = (slot.__markbookReplyCaches ??= new WeakMap());
  let cache = caches.get(db);
  if (!cache) {
    cache = { entries: new ByteBoundedLru(REPLY_CACHE_MAX_BYTES), inFlight: new Map() };
    caches.set(db, cache);
  }
  return cache;
}

/** Entries and bytes held for this database (for tests and diagnostics). */
export function replyCacheUsage(db: Db): { entries: number; bytes: number } {
  const { entries } = replyCacheOf(db);
  return { entries: entries.size, bytes: entries.bytes };
}

// The caller, as the cache needs to know them -------------------------------------------------------

interface CallerInstitute {
  id: string;
  /** A staff role there (school_admin, department_head, teacher): the policies show staff every member. */
  staff: boolean;
  graph_db_name: string;
  curriculum_db_name: string;
  version: string | null;
}

/** What app.reply_cache_caller_state answers (null when the user no longer exists). */
interface CallerState {
  school_id: string | null;
  user_db_name: string;
  user_version: string | null;
  /** Every institute the caller belongs to, by id. */
  institutes: CallerInstitute[];
  class_institute_id: string | null;
  graph_version: string | null;
}

async function readCallerState(db: Db, userId: string, about: { classId?: string; graphDatabase?: string } = {}): Promise<CallerState | null> {
  const [row] = rowsOf<{ state: CallerState | null }>(
    await db.execute(
      sql`select app.reply_cache_caller_state(${userId}::uuid, ${about.classId ?? null}::uuid, ${about.graphDatabase ?? null}::text) as state`,
    ),
  );
  return row?.state ?? null;
}

/** Where a reply may be shared: the entry's key and the database version the entry must carry. */
interface Sharing {
  key: string;
  version: string;
}

/**
 * Sharing of a list of `instituteId` among its staff. The policies decide these lists by the caller's
 * memberships: staff of an institute see all its members, classes and enrollments; whether another
 * member's name shows (the teacher of a class, an enrolled student) can depend on the caller's other
 * institutes. So the key holds every institute of the caller with staff or not, and the version holds
 * the versions of all of them. Not shared (null) when the caller is not staff there.
 */
function staffSharing(state: CallerState, instituteId: string | null, reply: unknown[]): Sharing | null {
  if (!instituteId || !state.institutes.some((institute) => institute.id === instituteId && institute.staff)) return null;
  return {
    key: JSON.stringify([...reply, instituteId, state.institutes.map((institute) => `${institute.id}:${institute.staff ? "staff" : "member"}`)]),
    version: state.institutes.map((institute) => institute.version ?? "0").join("."),
  };
}

function ownGraphDatabases(state: CallerState): CallerGraphDatabases {
  return {
    personal: state.user_db_name,
    institute: state.institutes.map((institute) => institute.graph_db_name),
    curriculum: state.institutes.map((institute) => institute.curriculum_db_name),
  };
}

// Serving ----------------------------------------------------------------------------------------------

const JSON_HEADERS = { "content-type": "application/json", "cache-control": "private, no-cache" };

const utf8 = new TextEncoder();

/** Checks, serialises and fingerprints a freshly computed reply. */
async function serialise(route: string, schema: z.ZodType, produce: () => Promise<unknown>): Promise<CachedReply> {
  const reply = validatedReply(schema, await produce(), route);
  // TextEncoder gives the bytes an ArrayBuffer of their own (a small Buffer would share Node's pool).
  const bytes = utf8.encode(JSON.stringify(reply));
  const etag = `"${crypto.createHash("sha256").update(bytes).digest("base64url")}"`;
  return { bytes, length: bytes.byteLength, etag, size: bytes.byteLength + ENTRY_OVERHEAD_BYTES };
}

/** True when an If-None-Match header names this entity tag (weak comparison, as RFC 9110 asks). */
function ifNoneMatchHits(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

function respond(request: Request, reply: CachedReply): Response {
  if (ifNoneMatchHits(request.headers.get("if-none-match"), reply.etag)) {
    return new Response(null, { status: 304, headers: { etag: reply.etag, "cache-control": JSON_HEADERS["cache-control"] } });
  }
  // The body is one chunk, the entry's own bytes, not a copy: a Uint8Array or Blob body is copied per
  // response, which for the 340 kB of 2000 students costs about 0.2 ms of CPU (mostly page faults on
  // the fresh memory), as much as the rest of the request. Nothing in the response path writes to a body
  // chunk (Node writes it to the socket; Response.json()/arrayBuffer() copy it); should something
  // transfer it, the entry notices (its length reads 0) and is computed again.
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(reply.bytes);
      controller.close();
    },
  });
  return new Response(body, { headers: { ...JSON_HEADERS, etag: reply.etag } });
}

async function serve(
  request: Request,
  db: Db,
  route: string,
  schema: z.ZodType,
  sharing: Sharing | null,
  produce: () => Promise<unknown>,
): Promise<Response> {
  if (!sharing) return respond(request, await serialise(route, schema, produce));
  const cache = replyCacheOf(db);
  const cached = cache.entries.get(sharing.key);
  if (cached?.version === sharing.version && cached.bytes.byteLength === cached.length) return respond(request, cached);

  // Concurrent misses of one entry at one version share one computation: every caller of a key sees the
  // same rows, so whose request computes it does not matter.
  const flightKey = `${sharing.version} ${sharing.key}`;
  let flight = cache.inFlight.get(flightKey);
  if (!flight) {
    flight = serialise(route, schema, produce)
      .then((reply) => {
        // The versions were read before the rows: a write in between leaves an entry with the old version
        // and newer rows, which the next request replaces; never old rows under a new version.
        cache.entries.set(sharing.key, { ...reply, version: sharing.version });
        return reply;
      })
      .finally(() => cache.inFlight.delete(flightKey));
    cache.inFlight.set(flightKey, flight);
  }
  return respond(request, await flight);
}

// The cached replies, one per REST list --------------------------------------------------------------

/** GET /me/bootstrap: per user, valid while their own row and their school's row are unchanged. */
export async function bootstrapProfileReply(request: Request, db: Db, userId: string): Promise<Response> {
  const state = await readCallerState(db, userId);
  const school = state?.institutes.find((institute) => institute.id === state.school_id);
  const sharing = state && {
    key: JSON.stringify(["bootstrap", userId]),
    // Whether the school is one of the caller's (its row is visible to them) is part of the version.
    version: `${state.user_version ?? "0"}/${school ? (school.version ?? "0") : "-"}`,
  };
  return serve(request, db, "GET /me/bootstrap", bootstrapProfileOutput, sharing, () =>
    asUser(db, userId, (tx) => getBootstrapProfile(tx, userId)),
  );
}

/** GET /database/timetable/classes/school/students: shared by the staff of the school. */
export async function schoolStudentsReply(request: Request, db: Db, userId: string): Promise<Response> {
  const state = await readCallerState(db, userId);
  const sharing = state && staffSharing(state, state.school_id, ["school-students"]);
  return serve(request, db, "GET /database/timetable/classes/school/students", schoolStudentsOutput, sharing, () =>
    asUser(db, userId, (tx) => listSchoolStudents(tx, userId)),
  );
}

/** GET /database/timetable/classes: shared by the staff of the school. */
export async function schoolClassesReply(request: Request, db: Db, userId: string): Promise<Response> {
  const state = await readCallerState(db, userId);
  const sharing = state && staffSharing(state, state.school_id, ["school-classes"]);
  return serve(request, db, "GET /database/timetable/classes", schoolClassListOutput, sharing, () =>
    asUser(db, userId, (tx) => listSchoolClasses(tx, userId)),
  );
}

/** GET /database/timetable/classes/{class_id}/students: shared by the staff of the class's institute. */
export async function classStudentsReply(
  request: Request,
  db: Db,
  userId: string,
  input: z.input<typeof listClassStudentsInput>,
): Promise<Response> {
  const { classId, includeInactive } = listClassStudentsInput.parse(input);
  const state = await readCallerState(db, userId, { classId });
  const sharing = state && staffSharing(state, state.class_institute_id, ["class-students", classId, includeInactive]);
  return serve(request, db, "GET /database/timetable/classes/{class_id}/students", classStudentsOutput, sharing, () =>
    asUser(db, userId, (tx) => listClassStudents(tx, { classId, includeInactive })),
  );
}

/**
 * GET /graph/node/children: the access rule is checked for every caller (from the same state read);
 * the children themselves depend on the graph only, so any caller allowed to ask shares them.
 */
export async function graphChildrenReply(request: Request, db: Db, userId: string, input: GraphChildrenInput): Promise<Response> {
  const query = graphChildrenInput.parse(input);
  const route = "GET /graph/node/children";
  const state = await readCallerState(db, userId, { graphDatabase: query.neo4j_db_name });
  if (!state) return serve(request, db, route, graphChildrenOutput, null, () => listGraphChildren(db, userId, query));
  const access = authorizeGraphChildren(ownGraphDatabases(state), query);
  const sharing =
    graphStore(db).kind === "embedded"
      ? {
          key: JSON.stringify(["graph-children", query.neo4j_db_name, query.neo4j_node_id, query.node_type ?? null, access.calendarOnly]),
          version: state.graph_version ?? "0",
        }
      : null;
  return serve(request, db, route, graphChildrenOutput, sharing, () => readGraphChildren(db, query, access));
}
