import { and, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Tx } from "../db/client";
import { instituteMemberships, userType, users } from "../db/schema";
import { callerSchoolIdQuery } from "../identity/caller-school";
import { sortByFullName } from "../../lib/text/names";

const schoolStudentOutput = z.object({
  id: z.uuid(),
  full_name: z.string(),
  display_name: z.string(),
  email: z.string(),
  user_type: z.enum(userType.enumValues),
});
export const schoolStudentsOutput = z.object({ students: z.array(schoolStudentOutput) });

/**
 * GET /database/timetable/classes/school/students: the students of the caller's school by full name, as
 * the contract says (docs/spec/classroom-api.md "Supporting endpoints"), with a collation (lib/text/names.ts: Łukasz
 * before Zoë); empty without a school. Row-level security applies: staff see every student, a student only themself.
 */
export async function listSchoolStudents(tx: Tx, userId: string) {
  const students = await tx
    .select({ id: users.id, full_name: users.full_name, display_name: users.display_name, email: users.email, user_type: users.user_type })
    .from(instituteMemberships)
    .innerJoin(users, eq(users.id, instituteMemberships.user_id))
    .where(and(inArray(instituteMemberships.institute_id, callerSchoolIdQuery(tx, userId)), eq(instituteMemberships.role, "student")));
  return { students: sortByFullName(students, (student) => student.full_name, (student) => student.id) };
}
