import { sql } from "drizzle-orm";
import { enqueuePersonalNodes } from "../graph/personal-node";
import type { Tx } from "../db/client";
import { violatedUniqueConstraint } from "../postgres-errors";
import { classTeachers, classes, enrollments, instituteMemberships, users } from "../db/schema";
import { AppError } from "../errors";
import { type RosterImportResult, type RosterPlan, type RosterWrites, planRosterImportInto } from "./roster-plan";
import type { RosterMapping } from "./roster-mapping";
import { rememberMapping } from "./roster-memory";
import type { RosterSource } from "./roster-source";

/** Rows per multi-row insert: well under PostgreSQL's 65,535 parameters for the widest table. */
const CHUNK = 1000;

/**
 * Applies a roster import to a school already authorised (the edges after importingSchool, under asUser
 * as the admin so row-level security applies; the CLI with service rights): the plan, then its writes,
 * in the caller's one transaction, all or nothing. The writes are batched, a few statements per kind
 * whatever the number of rows. A CSV's mapping is remembered for its header set (by `savedBy`, the
 * admin; null from the CLI).
 */
export async function applyRosterImportInto(tx: Tx, instituteId: string, source: RosterSource, mapping?: RosterMapping | null, savedBy: string | null = null): Promise<RosterImportResult> {
  const plan = await planRosterImportInto(tx, instituteId, source, mapping);
  if (plan.result.mappingProblems.length > 0) throw new AppError("invalid", plan.result.mappingProblems.join("; "), "mapping");
  try {
    // A savepoint: a unique violation (someone took an email meanwhile) is answered, the whole import undone.
    await tx.transaction(async (savepoint) => {
      await writeRosterPlan(savepoint, plan);
      if (plan.writes.mapping) await rememberMapping(savepoint, instituteId, plan.writes.mapping.columns, plan.writes.mapping.mapping, savedBy);
    });
  } catch (error) {
    if (violatedUniqueConstraint(error) !== null) {
      throw new AppError("conflict", "Someone changed the school's people or classes while this import ran: preview it again, then import");
    }
    throw error;
  }
  return { ...plan.result, applied: true };
}

const chunks = <T>(rows: T[]) => Array.from({ length: Math.ceil(rows.length / CHUNK) }, (_, index) => rows.slice(index * CHUNK, (index + 1) * CHUNK));

async function writeRosterPlan(tx: Tx, { writes }: RosterPlan): Promise<void> {
  const { instituteId } = writes;
  for (const chunk of chunks(writes.newUsers)) {
    await tx.insert(users).values(
      chunk.map((user) => ({ ...user, password_hash: null, school_id: instituteId, user_db_name: `user-${user.id.replaceAll("-", "")}` })),
    );
  }
  // The new people's own nodes in their personal graphs, as createUser queues them.
  if (writes.newUsers.length > 0) await enqueuePersonalNodes(tx);
  await updateUsers(tx, instituteId, writes.userUpdates);
  for (const chunk of chunks(writes.newMemberships)) {
    await tx
      .insert(instituteMemberships)
      .values(chunk.map((membership) => ({ ...membership, institute_id: instituteId })))
      .onConflictDoNothing();
  }
  for (const chunk of chunks(writes.newClasses)) {
    await tx.insert(classes).values(chunk.map((row) => ({ ...row, institute_id: instituteId })));
  }
  await updateClasses(tx, instituteId, writes.classUpdates);
  for (const chunk of chunks(writes.classTeachers)) await tx.insert(classTeachers).values(chunk).onConflictDoNothing();
  if (writes.classUpdates.length > 0 || writes.classTeachers.length > 0) {
    // A class's main teacher is never also one of its other teachers (a file made an other teacher main).
    await tx.execute(sql`
      delete from class_teachers ct using classes c
      where ct.class_id = c.id and ct.teacher_id = c.teacher_id and c.institute_id = ${instituteId}`);
  }
  for (const chunk of chunks(writes.enrollments)) {
    await tx
      .insert(enrollments)
      .values(chunk.map((row) => ({ ...row, active: true })))
      .onConflictDoUpdate({ target: [enrollments.class_id, enrollments.student_id], set: { active: true, updated_at: new Date() }, setWhere: sql`${enrollments.active} = false` });
  }
}

/** One statement for every changed person: the new values as one JSON parameter (null: unchanged). */
async function updateUsers(tx: Tx, instituteId: string, updates: RosterWrites["userUpdates"]) {
  if (updates.length === 0) return;
  await tx.execute(sql`
    update users u set
      email = coalesce(v.email, u.email),
      full_name = coalesce(v.full_name, u.full_name),
      year_group = coalesce(v.year_group, u.year_group),
      sis_id = coalesce(v.sis_id, u.sis_id)
    from jsonb_to_recordset(${JSON.stringify(updates)}::jsonb) as v(id uuid, email text, full_name text, year_group text, sis_id text)
    where u.id = v.id and u.school_id = ${instituteId}`);
}

async function updateClasses(tx: Tx, instituteId: string, updates: RosterWrites["classUpdates"]) {
  if (updates.length === 0) return;
  await tx.execute(sql`
    update classes c set name = v.name, sis_id = v.sis_id, subject = v.subject, teacher_id = v.teacher_id
    from jsonb_to_recordset(${JSON.stringify(updates)}::jsonb) as v(id uuid, name text, sis_id text, subject text, teacher_id uuid)
    where c.id = v.id and c.institute_id = ${instituteId}`);
}
