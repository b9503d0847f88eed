import { and, asc, desc, eq, inArray, isNull, ne, or, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { z } from "zod";
import { emptyAsAbsent, queryBoolean, text } from "../../lib/rules/input-rules";
import { recordId } from "../http/record-id";
import type { Tx } from "../db/client";
import { classTeachers, classes, enrollments, instituteMemberships, timetableEntries, timetables, users } from "../db/schema";
import { AppError, notFound } from "../errors";
import { staffRoles, isTimetableManager } from "../../lib/rules/roles";
import { callerRolesIn, findCallerSchool } from "../identity/caller-school";
import { violatedUniqueConstraint } from "../postgres-errors";

const timetableTypes = ["school", "class", "teacher", "exam"] as const;


export const listTimetablesInput = z.object({
  class_id: z.preprocess(emptyAsAbsent, z.uuid("class_id must be a class id").optional()),
  type: z.preprocess(emptyAsAbsent, z.enum(timetableTypes, `type must be one of ${timetableTypes.join(", ")}`).optional()),
  active: queryBoolean,
});

const isoDate = z.iso.date("must be a date (YYYY-MM-DD)");
/** HH:MM or HH:MM:SS, stored as PostgreSQL `time`. */
const timeOfDay = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/, "must be a time of day (HH:MM)")
  .transform((value) => (value.length === 5 ? `${value}:00` : value));

export const timetableOutput = z.object({
  id: z.uuid(),
  institute_id: z.uuid(),
  name: z.string(),
  type: z.enum(timetableTypes),
  class_id: z.uuid().nullable(),
  active: z.boolean(),
  starts_on: z.string().nullable(),
  ends_on: z.string().nullable(),
  created_by: z.uuid().nullable(),
  created_at: z.date(),
});

export const timetableEntryOutput = z.object({
  id: z.uuid(),
  timetable_id: z.uuid(),
  day: z.number().int(),
  period: z.number().int(),
  start_time: z.string(),
  end_time: z.string(),
  room: z.string().nullable(),
  class_id: z.uuid().nullable(),
  teacher_id: z.uuid().nullable(),
});

export const listTimetablesOutput = z.object({ timetables: z.array(timetableOutput) });
export const timetableWithEntriesOutput = timetableOutput.extend({ entries: z.array(timetableEntryOutput) });

const timetableColumns = {
  id: timetables.id,
  institute_id: timetables.institute_id,
  name: timetables.name,
  type: timetables.type,
  class_id: timetables.class_id,
  active: timetables.active,
  starts_on: timetables.starts_on,
  ends_on: timetables.ends_on,
  created_by: timetables.created_by,
  created_at: timetables.created_at,
};
type TimetableRow = z.infer<typeof timetableOutput>;

/**
 * GET /database/timetable/timetables: the timetables of the caller's school, newest first. Empty for a
 * caller without a school or who is not a school_admin or department_head of it (the contract's rule:
 * docs/spec/classroom-api.md "Supporting endpoints", and "Authentication" 6).
 */
export async function listTimetables(tx: Tx, userId: string, input: z.input<typeof listTimetablesInput>) {
  const filters = listTimetablesInput.parse(input);
  const school = await findCallerSchool(tx, userId);
  if (!school || !isTimetableManager(school.roles)) return { timetables: [] };
  const conditions: SQL[] = [eq(timetables.institute_id, school.instituteId)];
  if (filters.class_id) conditions.push(eq(timetables.class_id, filters.class_id));
  if (filters.type) conditions.push(eq(timetables.type, filters.type));
  if (filters.active !== undefined) conditions.push(eq(timetables.active, filters.active));
  const rows = await tx
    .select(timetableColumns)
    .from(timetables)
    .where(and(...conditions))
    .orderBy(desc(timetables.created_at), desc(timetables.id));
  return { timetables: rows as TimetableRow[] };
}

const forbiddenToManage = () => new AppError("forbidden", "Only a school admin or department head of the school can manage its timetables");

/**
 * A timetable the caller can see (else 404) and manage (else 403), locked for this transaction unless
 * `lock` is false (activation locks a whole set of rows in its own order).
 */
async function loadManagedTimetable(tx: Tx, userId: string, timetableId: string, lock = true): Promise<TimetableRow> {
  // Read first, lock after the role check: FOR UPDATE also applies the UPDATE policy, which would hide
  // the row from a colleague who may read it, turning their 403 into a 404.
  const [visible] = await tx.select(timetableColumns).from(timetables).where(eq(timetables.id, timetableId));
  if (!visible) throw notFound("Timetable");
  if (!isTimetableManager(await callerRolesIn(tx, userId, visible.institute_id))) throw forbiddenToManage();
  if (!lock) return visible as TimetableRow;
  const [timetable] = await tx.select(timetableColumns).from(timetables).where(eq(timetables.id, timetableId)).for("update");
  if (!timetable) throw notFound("Timetable"); // deleted meanwhile
  return timetable as TimetableRow;
}

async function assertClassOfInstitute(tx: Tx, classId: string, instituteId: string) {
  const [found] = await tx
    .select({ id: classes.id })
    .from(classes)
    .where(and(eq(classes.id, classId), eq(classes.institute_id, instituteId)));
  if (!found) throw notFound("Class");
}

/** A timetable as it will be stored, new or changed: a class timetable names its class, and it ends after it starts. */
function assertTimetableConsistent(timetable: { type?: string; class_id?: string | null; starts_on?: string | null; ends_on?: string | null }) {
  if (timetable.type === "class" && !timetable.class_id) throw new AppError("invalid", "A class timetable needs class_id", "class_id");
  const { starts_on: startsOn, ends_on: endsOn } = timetable;
  if (startsOn && endsOn && endsOn < startsOn) throw new AppError("invalid", "End date: must not be before the start date", "ends_on");
}

const timetableFields = {
  name: text(200).trim().min(1, "name is required"),
  type: z.enum(timetableTypes, `type must be one of ${timetableTypes.join(", ")}`),
  class_id: z.uuid("class_id must be a class id").nullable(),
  starts_on: isoDate.nullable(),
  ends_on: isoDate.nullable(),
};

export const createTimetableInput = z.object({
  name: timetableFields.name,
  type: timetableFields.type.default("school"),
  class_id: timetableFields.class_id.optional(),
  starts_on: timetableFields.starts_on.optional(),
  ends_on: timetableFields.ends_on.optional(),
});

/** Creates an inactive timetable in the caller's school (school admins and department heads only). */
export async function createTimetable(tx: Tx, userId: string, input: z.input<typeof createTimetableInput>) {
  const values = createTimetableInput.parse(input);
  const school = await findCallerSchool(tx, userId);
  if (!school || !isTimetableManager(school.roles)) throw forbiddenToManage();
  if (values.class_id) await assertClassOfInstitute(tx, values.class_id, school.instituteId);
  assertTimetableConsistent(values);
  const [created] = await tx
    .insert(timetables)
    .values({
      institute_id: school.instituteId,
      name: values.name,
      type: values.type,
      class_id: values.class_id ?? null,
      starts_on: values.starts_on ?? null,
      ends_on: values.ends_on ?? null,
      created_by: userId,
    })
    .returning(timetableColumns);
  return created as TimetableRow;
}

export const timetableIdInput = z.object({ id: recordId("Timetable") });

export const updateTimetableInput = z.object({
  id: recordId("Timetable"),
  name: timetableFields.name.optional(),
  type: timetableFields.type.optional(),
  class_id: timetableFields.class_id.optional(),
  starts_on: timetableFields.starts_on.optional(),
  ends_on: timetableFields.ends_on.optional(),
});

export async function updateTimetable(tx: Tx, userId: string, input: z.input<typeof updateTimetableInput>) {
  const { id, ...changes } = updateTimetableInput.parse(input);
  const current = await loadManagedTimetable(tx, userId, id);
  const next = { ...current, ...Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) };
  if (changes.class_id) await assertClassOfInstitute(tx, changes.class_id, current.institute_id);
  assertTimetableConsistent(next);
  const [updated] = await tx
    .update(timetables)
    .set({
      name: next.name,
      type: next.type,
      class_id: next.class_id,
      starts_on: next.starts_on,
      ends_on: next.ends_on,
    })
    .where(eq(timetables.id, id))
    .returning(timetableColumns);
  return updated as TimetableRow;
}

/**
 * Makes a timetable the active one of its kind: the other timetables of the same school, type and class
 * become inactive in the same transaction. Rows are locked in id order so that two concurrent
 * activations serialise instead of deadlocking, and exactly one of them ends up active.
 */
export async function activateTimetable(tx: Tx, userId: string, input: z.input<typeof timetableIdInput>) {
  const { id } = timetableIdInput.parse(input);
  const target = await loadManagedTimetable(tx, userId, id, false);
  const sameKind = and(
    eq(timetables.institute_id, target.institute_id),
    eq(timetables.type, target.type),
    target.class_id ? eq(timetables.class_id, target.class_id) : isNull(timetables.class_id),
  );
  // The whole set, target included, in one order: concurrent activations queue instead of deadlocking.
  const locked = await tx.select({ id: timetables.id }).from(timetables).where(sameKind).orderBy(asc(timetables.id)).for("update");
  if (!locked.some((row) => row.id === id)) {
    throw new AppError("conflict", "The timetable was changed or deleted meanwhile; try again");
  }
  await tx
    .update(timetables)
    .set({ active: false })
    .where(and(sameKind, ne(timetables.id, id), eq(timetables.active, true)));
  const [activated] = await tx.update(timetables).set({ active: true }).where(eq(timetables.id, id)).returning(timetableColumns);
  return activated as TimetableRow;
}

export async function deactivateTimetable(tx: Tx, userId: string, input: z.input<typeof timetableIdInput>) {
  const { id } = timetableIdInput.parse(input);
  await loadManagedTimetable(tx, userId, id);
  const [deactivated] = await tx.update(timetables).set({ active: false }).where(eq(timetables.id, id)).returning(timetableColumns);
  return deactivated as TimetableRow;
}

/** Deletes a timetable and its entries (the entries cascade). */
export async function deleteTimetable(tx: Tx, userId: string, input: z.input<typeof timetableIdInput>) {
  const { id } = timetableIdInput.parse(input);
  await loadManagedTimetable(tx, userId, id);
  await tx.delete(timetables).where(eq(timetables.id, id));
  return { id, deleted: true as const };
}

/** One timetable with its entries (by day, then period), for anyone of its school (RLS decides). */
export async function getTimetable(tx: Tx, input: z.input<typeof timetableIdInput>) {
  const { id } = timetableIdInput.parse(input);
  const [timetable] = await tx.select(timetableColumns).from(timetables).where(eq(timetables.id, id));
  if (!timetable) throw notFound("Timetable");
  const entries = await tx
    .select()
    .from(timetableEntries)
    .where(eq(timetableEntries.timetable_id, id))
    .orderBy(asc(timetableEntries.day), asc(timetableEntries.period), asc(timetableEntries.start_time));
  return { ...(timetable as TimetableRow), entries };
}

export const myLessonsOutput = z.object({
  lessons: z.array(
    timetableEntryOutput.extend({
      timetable_name: z.string(),
      class_name: z.string().nullable(),
      teacher_name: z.string().nullable(),
    }),
  ),
});

/**
 * The caller's own week: the lessons of their school's active timetables that they teach (named as the
 * lesson's teacher, or a teacher of its class: the main one or another) or, for a student, of the classes they are enrolled
 * in. A lesson without a class of its own belongs to its class timetable's class. Read-only, for anyone;
 * another school's lessons never appear (the caller's school, then RLS).
 */
export async function listMyLessons(tx: Tx, userId: string) {
  const school = await findCallerSchool(tx, userId);
  if (!school) return { lessons: [] };
  const lessonClass = sql`coalesce(${timetableEntries.class_id}, ${timetables.class_id})`;
  // The class's main teacher, or one of its other teachers (class_teachers: a roster's co-teachers).
  const teachesClass = sql`(${lessonClass} in (select ${classes.id} from ${classes} where ${classes.teacher_id} = ${userId})
    or ${lessonClass} in (select ${classTeachers.class_id} from ${classTeachers} where ${classTeachers.teacher_id} = ${userId}))`;
  const attendsClass = sql`${lessonClass} in (select ${enrollments.class_id} from ${enrollments} where ${enrollments.student_id} = ${userId} and ${enrollments.active})`;
  const lessonClasses = alias(classes, "lesson_class");
  const rows = await tx
    .select({
      id: timetableEntries.id,
      timetable_id: timetableEntries.timetable_id,
      day: timetableEntries.day,
      period: timetableEntries.period,
      start_time: timetableEntries.start_time,
      end_time: timetableEntries.end_time,
      room: timetableEntries.room,
      class_id: sql<string | null>`${lessonClass}`,
      teacher_id: timetableEntries.teacher_id,
      timetable_name: timetables.name,
      class_name: lessonClasses.name,
      teacher_name: users.full_name,
    })
    .from(timetableEntries)
    .innerJoin(timetables, eq(timetables.id, timetableEntries.timetable_id))
    .leftJoin(lessonClasses, sql`${lessonClasses.id} = ${lessonClass}`)
    .leftJoin(users, eq(users.id, timetableEntries.teacher_id))
    .where(
      and(
        eq(timetables.institute_id, school.instituteId),
        eq(timetables.active, true),
        or(eq(timetableEntries.teacher_id, userId), teachesClass, attendsClass),
      ),
    )
    .orderBy(asc(timetableEntries.day), asc(timetableEntries.period), asc(timetableEntries.start_time), asc(timetableEntries.id));
  return { lessons: rows };
}

// Entries ------------------------------------------------------------------------------------------

const dayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const entryFields = {
  day: z.number().int().min(1, "day must be 1 (Monday) to 7 (Sunday)").max(7, "day must be 1 (Monday) to 7 (Sunday)"),
  period: z.number().int().min(1, "period must be 1 or more").max(100, "period must be at most 100"),
  start_time: timeOfDay,
  end_time: timeOfDay,
  room: text(100)
    .trim()
    .transform((room) => (room === "" ? null : room))
    .nullable(),
  class_id: z.uuid("class_id must be a class id").nullable(),
  teacher_id: z.uuid("teacher_id must be a user id").nullable(),
};

const endAfterStart = (entry: { start_time?: string; end_time?: string }) =>
  entry.start_time === undefined || entry.end_time === undefined || entry.end_time > entry.start_time;
const endAfterStartMessage = { message: "must be after the start time", path: ["end_time"] };

export const createTimetableEntryInput = z
  .object({
    timetable_id: z.uuid("timetable_id must be a timetable id"),
    day: entryFields.day,
    period: entryFields.period,
    start_time: entryFields.start_time,
    end_time: entryFields.end_time,
    room: entryFields.room.optional(),
    class_id: entryFields.class_id.optional(),
    teacher_id: entryFields.teacher_id.optional(),
  })
  .refine(endAfterStart, endAfterStartMessage);

export const updateTimetableEntryInput = z
  .object({
    id: recordId("Timetable entry"),
    day: entryFields.day.optional(),
    period: entryFields.period.optional(),
    start_time: entryFields.start_time.optional(),
    end_time: entryFields.end_time.optional(),
    room: entryFields.room.optional(),
    class_id: entryFields.class_id.optional(),
    teacher_id: entryFields.teacher_id.optional(),
  })
  .refine(endAfterStart, endAfterStartMessage);

export const timetableEntryIdInput = z.object({ id: recordId("Timetable entry") });

type EntryValues = Omit<z.infer<typeof timetableEntryOutput>, "id">;

async function assertEntryReferences(tx: Tx, entry: EntryValues, instituteId: string) {
  if (entry.class_id) await assertClassOfInstitute(tx, entry.class_id, instituteId);
  if (entry.teacher_id) {
    const [staff] = await tx
      .select({ role: instituteMemberships.role })
      .from(instituteMemberships)
      .where(
        and(
          eq(instituteMemberships.institute_id, instituteId),
          eq(instituteMemberships.user_id, entry.teacher_id),
          inArray(instituteMemberships.role, [...staffRoles]),
        ),
      );
    if (!staff) throw new AppError("invalid", "Teacher: not a member of staff of this school", "teacher_id");
  }
}

/**
 * Writes an entry inside a savepoint. The unique indexes (timetable, day, period, teacher) and
 * (timetable, day, period, room) keep the no-double-booking rule true under concurrency; when one of them
 * refuses the write, the savepoint is rolled back and the clashing entry is named in a 409.
 */
async function writeEntryGuarded<T>(tx: Tx, entry: EntryValues, excludeEntryId: string | null, write: (savepoint: Tx) => Promise<T>) {
  try {
    return await tx.transaction(write);
  } catch (error) {
    const constraint = violatedUniqueConstraint(error);
    if (constraint === null) throw error;
    throw await describeClash(tx, entry, constraint, excludeEntryId);
  }
}

async function describeClash(tx: Tx, entry: EntryValues, constraint: string, excludeEntryId: string | null) {
  const byTeacher = constraint.includes("teacher");
  const [clash] = await tx
    .select({
      id: timetableEntries.id,
      class_name: classes.name,
      teacher_name: users.full_name,
      start_time: timetableEntries.start_time,
      end_time: timetableEntries.end_time,
    })
    .from(timetableEntries)
    .leftJoin(classes, eq(classes.id, timetableEntries.class_id))
    .leftJoin(users, eq(users.id, timetableEntries.teacher_id))
    .where(
      and(
        eq(timetableEntries.timetable_id, entry.timetable_id),
        eq(timetableEntries.day, entry.day),
        eq(timetableEntries.period, entry.period),
        byTeacher ? eq(timetableEntries.teacher_id, entry.teacher_id!) : eq(timetableEntries.room, entry.room!),
        excludeEntryId ? ne(timetableEntries.id, excludeEntryId) : sql`true`,
      ),
    );
  const slot = `${dayNames[entry.day - 1]} period ${entry.period}`;
  const who = byTeacher ? `Teacher ${clash?.teacher_name ?? entry.teacher_id}` : `Room ${entry.room}`;
  const what = clash
    ? ` (entry ${clash.id}${clash.class_name ? `, class ${clash.class_name}` : ""}, ${clash.start_time.slice(0, 5)}–${clash.end_time.slice(0, 5)})`
    : "";
  return new AppError("conflict", `${who} is already booked on ${slot} in this timetable${what}`, byTeacher ? "teacher_id" : "room");
}

export async function createTimetableEntry(tx: Tx, userId: string, input: z.input<typeof createTimetableEntryInput>) {
  const values = createTimetableEntryInput.parse(input);
  const timetable = await loadManagedTimetable(tx, userId, values.timetable_id);
  const entry: EntryValues = {
    timetable_id: values.timetable_id,
    day: values.day,
    period: values.period,
    start_time: values.start_time,
    end_time: values.end_time,
    room: values.room ?? null,
    class_id: values.class_id ?? null,
    teacher_id: values.teacher_id ?? null,
  };
  await assertEntryReferences(tx, entry, timetable.institute_id);
  return writeEntryGuarded(tx, entry, null, async (savepoint) => {
    const [created] = await savepoint.insert(timetableEntries).values(entry).returning();
    return created!;
  });
}

/** An entry the caller can see (else 404) and whose timetable they manage (else 403). */
async function loadManagedEntry(tx: Tx, userId: string, entryId: string) {
  const [entry] = await tx.select().from(timetableEntries).where(eq(timetableEntries.id, entryId));
  if (!entry) throw notFound("Timetable entry");
  const timetable = await loadManagedTimetable(tx, userId, entry.timetable_id);
  return { entry, timetable };
}

export async function updateTimetableEntry(tx: Tx, userId: string, input: z.input<typeof updateTimetableEntryInput>) {
  const { id, ...changes } = updateTimetableEntryInput.parse(input);
  const { entry: current, timetable } = await loadManagedEntry(tx, userId, id);
  const { id: _id, ...currentValues } = current;
  const next: EntryValues = {
    ...currentValues,
    ...(Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<EntryValues>),
  };
  if (!(next.end_time > next.start_time)) throw new AppError("invalid", "End time: must be after the start time", "end_time");
  await assertEntryReferences(tx, next, timetable.institute_id);
  return writeEntryGuarded(tx, next, id, async (savepoint) => {
    const [updated] = await savepoint.update(timetableEntries).set(next).where(eq(timetableEntries.id, id)).returning();
    return updated!;
  });
}

export async function deleteTimetableEntry(tx: Tx, userId: string, input: z.input<typeof timetableEntryIdInput>) {
  const { id } = timetableEntryIdInput.parse(input);
  await loadManagedEntry(tx, userId, id);
  await tx.delete(timetableEntries).where(eq(timetableEntries.id, id));
  return { id, deleted: true as const };
}
