import { and, asc, eq, inArray, isNotNull, ne, notInArray, or, sql } from "drizzle-orm";
import { z } from "zod";
import { text } from "../../lib/rules/input-rules";
import { recordId } from "../http/record-id";
import type { Tx } from "../db/client";
import { classTeachers, classes, enrollments, institutes, instituteMemberships, timetableEntries, timetables, users } from "../db/schema";
import { AppError, notFound } from "../errors";
import { staffRoles, isSchoolAdmin } from "../../lib/rules/roles";
import { callerRolesIn, callerSchoolIdQuery, findCallerSchool } from "../identity/caller-school";
import { violatedUniqueConstraint } from "../postgres-errors";

export const createClassInput = z.object({
  instituteId: z.uuid("institute must be an institute id"),
  name: text(200).trim().min(1, "name is required"),
  subject: text(200).trim().min(1).optional(),
  teacherId: z.uuid("teacher must be a user id").optional(),
});

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
          inArray(instituteMemberships.role, [...staffRoles]),
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

// Class lists and administration for the caller (REST and tRPC) ----------------------------------

export const classOutput = z.object({
  id: z.uuid(),
  institute_id: z.uuid(),
  name: z.string(),
  subject: z.string().nullable(),
  teacher_id: z.uuid().nullable(),
  /** The main teacher's full name, when the class has one. */
  teacher_name: z.string().nullable(),
  /** The class's other teachers (not the main teacher), by name: they teach it too and make its batches. */
  other_teachers: z.array(z.object({ id: z.uuid(), full_name: z.string() })),
  created_at: z.date(),
});
export const classListOutput = z.object({ classes: z.array(classOutput) });
export const schoolClassListOutput = classListOutput.extend({ total: z.number().int() });

const classColumns = {
  id: classes.id,
  institute_id: classes.institute_id,
  name: classes.name,
  subject: classes.subject,
  teacher_id: classes.teacher_id,
  teacher_name: users.full_name,
  created_at: classes.created_at,
};

function selectClasses(tx: Tx) {
  return tx.select(classColumns).from(classes).leftJoin(users, eq(users.id, classes.teacher_id));
}

type ClassRow = Omit<z.output<typeof classOutput>, "other_teachers">;

/** The classes with their other teachers, in one more query whatever their number. */
async function withOtherTeachers<Row extends ClassRow>(tx: Tx, rows: Row[]): Promise<(Row & { other_teachers: { id: string; full_name: string }[] })[]> {
  const byClass = new Map<string, { id: string; full_name: string }[]>();
  if (rows.length > 0) {
    const teachers = await tx
      .select({ class_id: classTeachers.class_id, id: users.id, full_name: users.full_name })
      .from(classTeachers)
      .innerJoin(users, eq(users.id, classTeachers.teacher_id))
      .innerJoin(classes, eq(classes.id, classTeachers.class_id))
      .where(and(inArray(classTeachers.class_id, rows.map((row) => row.id)), ne(classTeachers.teacher_id, sql`coalesce(${classes.teacher_id}, '00000000-0000-0000-0000-000000000000'::uuid)`)))
      .orderBy(asc(users.full_name), asc(users.id));
    for (const { class_id, ...teacher } of teachers) byClass.set(class_id, [...(byClass.get(class_id) ?? []), teacher]);
  }
  return rows.map((row) => ({ ...row, other_teachers: byClass.get(row.id) ?? [] }));
}

/** Every class of the caller's school, by name, with their number; empty (total 0) without a school. */
export async function listSchoolClasses(tx: Tx, userId: string) {
  const rows = await selectClasses(tx)
    .where(inArray(classes.institute_id, callerSchoolIdQuery(tx, userId)))
    .orderBy(asc(classes.name), asc(classes.id));
  return { classes: await withOtherTeachers(tx, rows), total: rows.length };
}

/**
 * Classes of the caller's school that the caller teaches: as the class's main teacher, as one of its
 * other teachers, or in an entry of an active timetable. Empty without a school.
 */
export async function listTaughtClasses(tx: Tx, userId: string) {
  const taughtInActiveTimetable = tx
    .select({ class_id: timetableEntries.class_id })
    .from(timetableEntries)
    .innerJoin(timetables, eq(timetables.id, timetableEntries.timetable_id))
    .where(and(eq(timetableEntries.teacher_id, userId), eq(timetables.active, true), isNotNull(timetableEntries.class_id)));
  const rows = await selectClasses(tx)
    .where(
      and(
        inArray(classes.institute_id, callerSchoolIdQuery(tx, userId)),
        or(
          eq(classes.teacher_id, userId),
          inArray(classes.id, tx.select({ class_id: classTeachers.class_id }).from(classTeachers).where(eq(classTeachers.teacher_id, userId))),
          inArray(classes.id, taughtInActiveTimetable),
        ),
      ),
    )
    .orderBy(asc(classes.name), asc(classes.id));
  return { classes: await withOtherTeachers(tx, rows) };
}

/** Classes of the caller's school in which the caller is actively enrolled. Empty without a school. */
export async function listEnrolledClasses(tx: Tx, userId: string) {
  const rows = await selectClasses(tx)
    .innerJoin(enrollments, and(eq(enrollments.class_id, classes.id), eq(enrollments.student_id, userId), eq(enrollments.active, true)))
    .where(inArray(classes.institute_id, callerSchoolIdQuery(tx, userId)))
    .orderBy(asc(classes.name), asc(classes.id));
  return { classes: await withOtherTeachers(tx, rows) };
}

const forbiddenToAdminister = () => new AppError("forbidden", "Only a school admin of the class's school can change its classes");

export const createSchoolClassInput = createClassInput.extend({
  /** Defaults to the caller's school. */
  instituteId: createClassInput.shape.instituteId.optional(),
});

/** Creates a class in the caller's school (or a named institute); school admins only. */
export async function createSchoolClass(tx: Tx, userId: string, input: z.input<typeof createSchoolClassInput>) {
  const values = createSchoolClassInput.parse(input);
  const instituteId = values.instituteId ?? (await findCallerSchool(tx, userId))?.instituteId;
  if (!instituteId) throw new AppError("forbidden", "You have no school to create classes in");
  const roles = await callerRolesIn(tx, userId, instituteId);
  if (roles.length === 0) throw notFound("Institute"); // not one of the caller's: outside their scope
  if (!isSchoolAdmin(roles)) throw forbiddenToAdminister();
  try {
    // A savepoint, so that a concurrent twin's unique violation can still be answered as 409.
    return await tx.transaction((savepoint) => createClass(savepoint, { ...values, instituteId }));
  } catch (error) {
    if (violatedUniqueConstraint(error) !== null) throw new AppError("conflict", `The school already has a class named "${values.name}"`, "name");
    throw error;
  }
}

/** A class the caller can see (else 404) and administer (else 403). */
export async function loadAdministeredClass(tx: Tx, userId: string, classId: string) {
  const [found] = await tx.select({ id: classes.id, institute_id: classes.institute_id }).from(classes).where(eq(classes.id, classId));
  if (!found) throw notFound("Class");
  if (!isSchoolAdmin(await callerRolesIn(tx, userId, found.institute_id))) throw forbiddenToAdminister();
  return found;
}

export const renameClassInput = z.object({
  classId: recordId("Class"),
  name: createClassInput.shape.name,
});

export async function renameClass(tx: Tx, userId: string, input: z.input<typeof renameClassInput>) {
  const { classId, name } = renameClassInput.parse(input);
  await loadAdministeredClass(tx, userId, classId);
  try {
    await tx.transaction((savepoint) => savepoint.update(classes).set({ name }).where(eq(classes.id, classId)));
  } catch (error) {
    if (violatedUniqueConstraint(error) !== null) throw new AppError("conflict", `The school already has a class named "${name}"`, "name");
    throw error;
  }
  const [renamed] = await withOtherTeachers(tx, await selectClasses(tx).where(eq(classes.id, classId)));
  return renamed!;
}

// A class's teachers -----------------------------------------------------------------------------------

export const setClassTeachersInput = z.object({
  classId: recordId("Class"),
  /** The main teacher (the contract's teacher_id, docs/spec/classroom-api.md "Batch (fields seen)"), or null for none. */
  teacherId: z.uuid("teacher_id must be a user id").nullable(),
  /** Everyone else who teaches the class; the main teacher among them is ignored. */
  otherTeacherIds: z.array(z.uuid("other_teacher_ids must hold user ids")).max(50, "A class can have at most 50 other teachers").default([]),
});

const notStaff = () => new AppError("invalid", "Only staff of the class's school can teach it: choose teachers from the school's staff", "teacher");

/**
 * Sets who teaches a class (school admins of its school; 404 for another school's class, 403 for its
 * other members): the main teacher and the other teachers, replacing the ones it had. Each must be staff
 * of the class's school (400 otherwise, one sentence whoever they are, so nothing is learnt about other
 * schools). The class row is locked first: two admins setting teachers at once are serialised.
 */
export async function setClassTeachers(tx: Tx, userId: string, input: z.input<typeof setClassTeachersInput>) {
  const { classId, teacherId, otherTeacherIds } = setClassTeachersInput.parse(input);
  const found = await loadAdministeredClass(tx, userId, classId);
  await tx.select({ id: classes.id }).from(classes).where(eq(classes.id, classId)).for("update");
  const others = [...new Set(otherTeacherIds)].filter((id) => id !== teacherId);
  const wanted = [...new Set([...(teacherId ? [teacherId] : []), ...others])];
  if (wanted.length > 0) {
    const staff = await tx
      .selectDistinct({ user_id: instituteMemberships.user_id })
      .from(instituteMemberships)
      .where(
        and(
          eq(instituteMemberships.institute_id, found.institute_id),
          inArray(instituteMemberships.user_id, wanted),
          inArray(instituteMemberships.role, [...staffRoles]),
        ),
      );
    if (staff.length !== wanted.length) throw notStaff();
  }
  await tx.update(classes).set({ teacher_id: teacherId }).where(eq(classes.id, classId));
  await tx
    .delete(classTeachers)
    .where(and(eq(classTeachers.class_id, classId), others.length > 0 ? notInArray(classTeachers.teacher_id, others) : undefined));
  if (others.length > 0) {
    await tx
      .insert(classTeachers)
      .values(others.map((id) => ({ class_id: classId, teacher_id: id })))
      .onConflictDoNothing();
  }
  const [updated] = await withOtherTeachers(tx, await selectClasses(tx).where(eq(classes.id, classId)));
  return updated!;
}
