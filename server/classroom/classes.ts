import { and, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Tx } from "../db/client";
import { classes, institutes, instituteMemberships } from "../db/schema";
import { AppError, notFound } from "../errors";

export const createClassInput = z.object({
  instituteId: z.uuid("institute must be an institute id"),
  name: z.string().trim().min(1, "name is required").max(200, "name must have at most 200 characters"),
  subject: z.string().trim().min(1).max(200).optional(),
  teacherId: z.uuid("teacher must be a user id").optional(),
});

/** Roles that may be a class's teacher. */
const teachingRoles = ["teacher", "department_head", "school_admin"] as const;

export async function createClass(tx: Tx, input: z.input<typeof createClassInput>) {
  const { instituteId, name, subject, teacherId } = createClassInput.parse(input);
  const [institute] = await tx.select({ id: institutes.id }).from(institutes).where(eq(institutes.id, instituteId));
  if (!institute) throw notFound("Institute");
  if (teacherId) {
    const [membership] = await tx
      .select({ role: instituteMemberships.role })
      .from(instituteMemberships)
      .where(
        and(
          eq(instituteMemberships.institute_id, instituteId),
          eq(instituteMemberships.user_id, teacherId),
          inArray(instituteMemberships.role, [...teachingRoles]),
        ),
      );
    if (!membership) throw new AppError("invalid", "The teacher must be a member of staff of the class's institute", "teacher");
  }
  const [existing] = await tx
    .select({ id: classes.id })
    .from(classes)
    .where(and(eq(classes.institute_id, instituteId), eq(classes.name, name)));
  if (existing) throw new AppError("conflict", `The institute already has a class named "${name}"`, "name");
  const [created] = await tx
    .insert(classes)
    .values({ institute_id: instituteId, name, subject: subject ?? null, teacher_id: teacherId ?? null })
    .returning();
  return created!;
}
