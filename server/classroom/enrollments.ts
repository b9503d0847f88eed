import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { recordId } from "../http/record-id";
import type { Tx } from "../db/client";
import { classes, enrollments, instituteMemberships, userType, users } from "../db/schema";
import { AppError, notFound } from "../errors";
import { loadAdministeredClass } from "./classes";
import { sortByName } from "../../lib/text/names";

export const enrollStudentInput = z.object({
  classId: recordId("Class"),
  studentId: z.uuid("student must be a user id"),
});

/**
 * Enrolls a student in a class: active, re-activating an enrollment that was ended, and harmless when
 * the student is already enrolled. Only students of the class's own institute can be enrolled.
 */
export async function enrollStudent(tx: Tx, input: z.input<typeof enrollStudentInput>) {
  const { classId, studentId } = enrollStudentInput.parse(input);
  const [found] = await tx.select({ institute_id: classes.institute_id }).from(classes).where(eq(classes.id, classId));
  if (!found) throw notFound("Class");
  const [membership] = await tx
    .select({ role: instituteMemberships.role })
    .from(instituteMemberships)
    .where(
      and(
        eq(instituteMemberships.institute_id, found.institute_id),
        eq(instituteMemberships.user_id, studentId),
        eq(instituteMemberships.role, "student"),
      ),
    );
  if (!membership) throw new AppError("invalid", "The user is not a student of the class's institute (only its students can be enrolled)", "student");
  // An enrollment that is already active is left exactly as it was.
  const [changed] = await tx
    .insert(enrollments)
    .values({ class_id: classId, student_id: studentId, active: true })
    .onConflictDoUpdate({
      target: [enrollments.class_id, enrollments.student_id],
      set: { active: true, updated_at: new Date() },
      setWhere: eq(enrollments.active, false),
    })
    .returning();
  if (changed) return changed;
  const [unchanged] = await tx
    .select()
    .from(enrollments)
    .where(and(eq(enrollments.class_id, classId), eq(enrollments.student_id, studentId)));
  return unchanged!;
}

// Enrollment administration for the caller (REST and tRPC) -----------------------------------------

export const enrollmentOutput = z.object({
  class_id: z.uuid(),
  student_id: z.uuid(),
  active: z.boolean(),
  created_at: z.date(),
  updated_at: z.date(),
});

/**
 * A school admin adds a student of the class's school to the class: 404 when the class is outside the
 * caller's scope, 403 when the caller is not a school admin of it, 400 when the user is not a student of
 * that school. Idempotent; an inactive enrollment becomes active again.
 */
export async function addStudentToClass(tx: Tx, userId: string, input: z.input<typeof enrollStudentInput>) {
  const { classId, studentId } = enrollStudentInput.parse(input);
  await loadAdministeredClass(tx, userId, classId);
  return enrollStudent(tx, { classId, studentId });
}

/** Removes a student from a class, softly: the enrollment stays, inactive (404 when there is none). */
export async function removeEnrollment(tx: Tx, userId: string, input: z.input<typeof enrollStudentInput>) {
  const { classId, studentId } = enrollStudentInput.parse(input);
  await loadAdministeredClass(tx, userId, classId);
  const [removed] = await tx
    .update(enrollments)
    .set({ active: false, updated_at: new Date() })
    .where(and(eq(enrollments.class_id, classId), eq(enrollments.student_id, studentId)))
    .returning();
  if (!removed) throw notFound("Enrollment");
  return removed;
}

export const listClassStudentsInput = z.object({
  classId: recordId("Class"),
  /** Also list students whose enrollment was ended. */
  includeInactive: z.boolean().default(false),
});

const classStudentOutput = z.object({
  id: z.uuid(),
  full_name: z.string(),
  display_name: z.string(),
  email: z.string(),
  user_type: z.enum(userType.enumValues),
  active: z.boolean(),
  enrolled_at: z.date(),
});
export const classStudentsOutput = z.object({ students: z.array(classStudentOutput) });

/**
 * The students of a class, by surname (lib/text/names.ts). Row-level security decides: staff of the school see the whole
 * class, a student only their own enrollment; a class outside the caller's school is 404.
 */
export async function listClassStudents(tx: Tx, input: z.input<typeof listClassStudentsInput>) {
  const { classId, includeInactive } = listClassStudentsInput.parse(input);
  const [found] = await tx.select({ id: classes.id }).from(classes).where(eq(classes.id, classId));
  if (!found) throw notFound("Class");
  const students = await tx
    .select({
      id: users.id,
      full_name: users.full_name,
      display_name: users.display_name,
      email: users.email,
      user_type: users.user_type,
      active: enrollments.active,
      enrolled_at: enrollments.created_at,
    })
    .from(enrollments)
    .innerJoin(users, eq(users.id, enrollments.student_id))
    .where(and(eq(enrollments.class_id, classId), includeInactive ? undefined : eq(enrollments.active, true)));
  return { students: sortByName(students, (student) => student.full_name, (student) => student.id) };
}
