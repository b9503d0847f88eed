import type { z } from "zod";
import type { Db } from "../db/client";
import { type CallerState, readCallerState } from "../db/reply-cache-state";
import type { Sharing } from "../http/reply-cache";
import type { CacheRule } from "../operations/define";
import { listClassStudentsInput } from "./enrollments";

/**
 * The reply cache of the big read-mostly REST lists: who shares a school's students and classes and a
 * class's roster, and while which versions (the operations' REST faces say `cache:` with these rules:
 * classroom/class-operations.ts). Graph children's rule is the graph's (server/graph/children-cache.ts),
 * the bootstrap profile's identity's (server/identity/bootstrap-cache.ts); the caller's state they all
 * read is server/db/reply-cache-state.ts.
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

// The cached lists' rules, one per REST list -------------------------------------------------------

/** GET /database/timetable/classes/school/students: shared by the staff of the school. */
export async function schoolStudentsCache(db: Db, userId: string): Promise<CacheRule> {
  const state = await readCallerState(db, userId);
  return { sharing: state && staffSharing(state, state.school_id, ["school-students"]) };
}

/** GET /database/timetable/classes: shared by the staff of the school. */
export async function schoolClassesCache(db: Db, userId: string): Promise<CacheRule> {
  const state = await readCallerState(db, userId);
  return { sharing: state && staffSharing(state, state.school_id, ["school-classes"]) };
}

/** GET /database/timetable/classes/{class_id}/students: shared by the staff of the class's institute. */
export async function classStudentsCache(db: Db, userId: string, input: z.input<typeof listClassStudentsInput>): Promise<CacheRule> {
  const { classId, includeInactive } = listClassStudentsInput.parse(input);
  const state = await readCallerState(db, userId, { classId });
  return { sharing: state && staffSharing(state, state.class_institute_id, ["class-students", classId, includeInactive]) };
}
