import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Tx } from "../db/client";
import { classes, enrollments, instituteMemberships } from "../db/schema";
import { AppError, notFound } from "../errors";

export const enrollStudentInput = z.object({
  classId: z.uuid("class must be a class id"),
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
