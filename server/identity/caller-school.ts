import { and, eq } from "drizzle-orm";
import type { Tx } from "../db/client";
import { instituteMemberships, users } from "../db/schema";
import type { Role } from "./users";

export interface CallerSchool {
  instituteId: string;
  /** The caller's roles in that school. */
  roles: Role[];
}

/**
 * The caller's school (users.school_id) and their roles in it, read as the caller. Null without a
 * school: the classroom lists then answer empty rather than failing.
 */
export async function findCallerSchool(tx: Tx, userId: string): Promise<CallerSchool | null> {
  // One round trip: the user's school joined with their memberships in it (one row per role, or one
  // row with a null role when they have none there).
  const rows = await tx
    .select({ school_id: users.school_id, role: instituteMemberships.role })
    .from(users)
    .leftJoin(
      instituteMemberships,
      and(eq(instituteMemberships.user_id, users.id), eq(instituteMemberships.institute_id, users.school_id)),
    )
    .where(eq(users.id, userId));
  const schoolId = rows[0]?.school_id;
  if (!schoolId) return null;
  return { instituteId: schoolId, roles: rows.flatMap((row) => (row.role ? [row.role] : [])) };
}

/**
 * The caller's school id as a subquery, so that a list can be filtered by it in the same statement (one
 * round trip); it yields no row for a caller without a school, so the list is then empty.
 */
export function callerSchoolIdQuery(tx: Tx, userId: string) {
  return tx.select({ school_id: users.school_id }).from(users).where(eq(users.id, userId));
}

/** The caller's roles in one institute (empty when they are not a member). */
export async function callerRolesIn(tx: Tx, userId: string, instituteId: string): Promise<Role[]> {
  const memberships = await tx
    .select({ role: instituteMemberships.role })
    .from(instituteMemberships)
    .where(and(eq(instituteMemberships.user_id, userId), eq(instituteMemberships.institute_id, instituteId)));
  return memberships.map((membership) => membership.role);
}

