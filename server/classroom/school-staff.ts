import { and, asc, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Tx } from "../db/client";
import { instituteMemberships, users } from "../db/schema";
import { staffRoles } from "../../lib/rules/roles";
import { callerSchoolIdQuery } from "../identity/caller-school";

const schoolStaffMemberOutput = z.object({
  id: z.uuid(),
  full_name: z.string(),
  display_name: z.string(),
  email: z.string(),
});
export const schoolStaffOutput = z.object({ staff: z.array(schoolStaffMemberOutput) });

/**
 * The teaching staff of the caller's school by full name, each once however many roles they hold (the
 * teacher choices of the timetable and class forms). Empty without a school. Row-level security applies:
 * every member of a school may see its staff memberships.
 */
export async function listSchoolStaff(tx: Tx, userId: string) {
  const staff = await tx
    .selectDistinct({ id: users.id, full_name: users.full_name, display_name: users.display_name, email: users.email })
    .from(instituteMemberships)
    .innerJoin(users, eq(users.id, instituteMemberships.user_id))
    .where(
      and(
        inArray(instituteMemberships.institute_id, callerSchoolIdQuery(tx, userId)),
        inArray(instituteMemberships.role, [...staffRoles]),
      ),
    )
    .orderBy(asc(users.full_name), asc(users.id));
  return { staff };
}
