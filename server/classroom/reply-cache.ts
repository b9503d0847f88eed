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
import { type Sharing, serveCachedReply } from "../http/reply-cache";

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
 *   (reply_cache_versions, bumped by triggers in the writing transaction: server/db/sql/triggers/), so every app
 *   process and the CLI stay coherent. Each request reads the versions and the caller's memberships in
 *   one statement (app.reply_cache_caller_state). Graph children are cached with the embedded graph
 *   store only: writes to Neo4j bump no version.
 * - The mechanism (serialising, ETags and 304, the memory bound, shared computations) is HTTP's and
 *   knows no domain: server/http/reply-cache.ts.
 */

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
  return serveCachedReply(request, db, "GET /me/bootstrap", bootstrapProfileOutput, sharing, () =>
    asUser(db, userId, (tx) => getBootstrapProfile(tx, userId)),
  );
}

/** GET /database/timetable/classes/school/students: shared by the staff of the school. */
export async function schoolStudentsReply(request: Request, db: Db, userId: string): Promise<Response> {
  const state = await readCallerState(db, userId);
  const sharing = state && staffSharing(state, state.school_id, ["school-students"]);
  return serveCachedReply(request, db, "GET /database/timetable/classes/school/students", schoolStudentsOutput, sharing, () =>
    asUser(db, userId, (tx) => listSchoolStudents(tx, userId)),
  );
}

/** GET /database/timetable/classes: shared by the staff of the school. */
export async function schoolClassesReply(request: Request, db: Db, userId: string): Promise<Response> {
  const state = await readCallerState(db, userId);
  const sharing = state && staffSharing(state, state.school_id, ["school-classes"]);
  return serveCachedReply(request, db, "GET /database/timetable/classes", schoolClassListOutput, sharing, () =>
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
  return serveCachedReply(request, db, "GET /database/timetable/classes/{class_id}/students", classStudentsOutput, sharing, () =>
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
  if (!state) return serveCachedReply(request, db, route, graphChildrenOutput, null, () => listGraphChildren(db, userId, query));
  const access = authorizeGraphChildren(ownGraphDatabases(state), query);
  const sharing =
    graphStore(db).kind === "embedded"
      ? {
          key: JSON.stringify(["graph-children", query.neo4j_db_name, query.neo4j_node_id, query.node_type ?? null, access.calendarOnly]),
          version: state.graph_version ?? "0",
        }
      : null;
  return serveCachedReply(request, db, route, graphChildrenOutput, sharing, () => readGraphChildren(db, query, access));
}
