import { sql } from "drizzle-orm";
import { type Db, rowsOf } from "./client";

/**
 * The caller as the reply cache needs to know them (server/http/reply-cache.ts; the rules are the domains':
 * server/classroom/reply-cache.ts, server/graph/children-cache.ts, server/identity/bootstrap-profile.ts):
 * their school, memberships and the versions the database keeps for what the cached lists read
 * (reply_cache_versions, bumped by triggers: server/db/sql/triggers/), read in one statement
 * (app.reply_cache_caller_state).
 */

interface CallerInstitute {
  id: string;
  /** A staff role there (school_admin, department_head, teacher): the policies show staff every member. */
  staff: boolean;
  graph_db_name: string;
  curriculum_db_name: string;
  version: string | null;
}

/** What app.reply_cache_caller_state answers (null when the user no longer exists). */
export interface CallerState {
  school_id: string | null;
  user_db_name: string;
  user_version: string | null;
  /** Every institute the caller belongs to, by id. */
  institutes: CallerInstitute[];
  class_institute_id: string | null;
  graph_version: string | null;
}

export async function readCallerState(db: Db, userId: string, about: { classId?: string; graphDatabase?: string } = {}): Promise<CallerState | null> {
  const [row] = rowsOf<{ state: CallerState | null }>(
    await db.execute(
      sql`select app.reply_cache_caller_state(${userId}::uuid, ${about.classId ?? null}::uuid, ${about.graphDatabase ?? null}::text) as state`,
    ),
  );
  return row?.state ?? null;
}
