import { type SQL, and, count, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import { foldName, foldedIncludes, sortByName } from "../../lib/text/names";
import { z } from "zod";
import { generateTemporaryPassword, hashPassword } from "../auth/passwords";
import { findCallerSchool } from "./caller-school";
import type { Tx } from "../db/client";
import { violatedUniqueConstraint } from "../postgres-errors";
import { classes, enrollments, instituteMemberships, users } from "../db/schema";
import { AppError, notFound } from "../errors";
import { emptyAsAbsent, integer, text } from "../../lib/rules/input-rules";
import { recordId } from "../http/record-id";
import { type Role, isSchoolAdmin, roles } from "../../lib/rules/roles";
import { createUser, createUserInput, emailInUse, isEmailInUse, setUserActive, userTypeOfRole } from "./users";

/**
 * People of a school, managed by its school admins: list, add, edit, change role, deactivate and
 * reactivate, reset a password. Every function runs as the caller (asUser): row-level security
 * (server/db/sql/policies/users/) lets an admin write only users whose school is theirs, and these
 * functions say the rest: a person
 * outside the caller's school is not found, a caller who is not an admin is refused.
 */

const statuses = ["active", "deactivated"] as const;
const MAX_PAGE = 200;
const DEFAULT_PAGE = 50;

/** A whole number in a query string ("50") or a number (tRPC); empty is absent. */
const queryInteger = (min: number, max: number) =>
  z.preprocess((value) => (typeof value === "string" && /^\d+$/.test(value) ? Number(value) : emptyAsAbsent(value)), integer({ min, max }).optional());

const roleChoice = z.enum(roles, `role must be one of ${roles.join(", ")}`);

export const listPeopleInput = z.object({
  search: z.preprocess(emptyAsAbsent, text(200).trim().optional()).meta({ description: "Part of a name, email or username: case, accents and apostrophe style aside (zoe finds Zoë)" }),
  role: z.preprocess(emptyAsAbsent, roleChoice.optional()),
  class_id: z.preprocess(emptyAsAbsent, z.uuid("class_id must be a class id").optional()).meta({ description: "Students enrolled in the class and its teacher" }),
  status: z.preprocess(emptyAsAbsent, z.enum(statuses, `status must be one of ${statuses.join(", ")}`).optional()),
  limit: queryInteger(1, MAX_PAGE).meta({ description: `At most ${MAX_PAGE}; ${DEFAULT_PAGE} when not given` }),
  offset: queryInteger(0, 1_000_000),
});

export const personIdInput = z.object({ user_id: recordId("Person") });

const yearGroup = text(40).trim();

export const addPersonInput = z.object({
  full_name: createUserInput.shape.fullName,
  email: createUserInput.shape.email,
  role: roleChoice,
  year_group: yearGroup.optional(),
  /** Classes of the caller's school the new student is enrolled in. */
  class_ids: z.array(z.uuid("class_ids must be class ids")).max(50, "choose at most 50 classes").optional(),
});

export const editPersonInput = z.object({
  full_name: createUserInput.shape.fullName.optional(),
  display_name: text(200).trim().min(1, "display name must not be empty").optional(),
  email: createUserInput.shape.email.optional(),
  /** Empty clears it. */
  year_group: yearGroup.nullable().optional(),
  role: roleChoice.optional(),
  active: z.boolean("active must be true or false").optional(),
});

export const personOutput = z.object({
  id: z.uuid(),
  full_name: z.string(),
  display_name: z.string(),
  email: z.string(),
  username: z.string(),
  roles: z.array(z.enum(roles)),
  year_group: z.string().nullable(),
  /** Names of the classes the person is actively enrolled in or teaches. */
  classes: z.array(z.string()),
  active: z.boolean(),
  has_password: z.boolean(),
  must_change_password: z.boolean(),
});
export const peoplePageOutput = z.object({ people: z.array(personOutput), total: z.number().int() });
export const temporaryPasswordOutput = z.object({ temporary_password: z.string() });

export const ONLY_ADMINS = "Only a school admin manages people";

/** The caller's school, when they administer it; else forbidden. */
async function administeredSchool(tx: Tx, callerId: string): Promise<string> {
  const school = await findCallerSchool(tx, callerId);
  if (!school || !isSchoolAdmin(school.roles)) throw new AppError("forbidden", ONLY_ADMINS);
  return school.instituteId;
}

// Qualified by hand: drizzle writes a selected column unqualified ("id"), which inside a subquery
// would name the subquery's own table.
const userIdColumn = sql`${sql.identifier("users")}.${sql.identifier("id")}`;
const userSchoolColumn = sql`${sql.identifier("users")}.${sql.identifier("school_id")}`;

const personColumns = {
  id: users.id,
  full_name: users.full_name,
  display_name: users.display_name,
  email: users.email,
  username: users.username,
  roles: sql<Role[]>`coalesce((select array_agg(m.role::text order by m.role) from ${instituteMemberships} m
    where m.user_id = ${userIdColumn} and m.institute_id = ${userSchoolColumn}), '{}'::text[])`,
  year_group: users.year_group,
  classes: sql<string[]>`coalesce((select array_agg(c.name order by c.name) from ${classes} c
    where c.institute_id = ${userSchoolColumn} and (c.teacher_id = ${userIdColumn}
      or exists (select 1 from ${enrollments} e where e.class_id = c.id and e.student_id = ${userIdColumn} and e.active))), '{}'::text[])`,
  active: sql<boolean>`${users.deactivated_at} is null`,
  has_password: sql<boolean>`${users.password_hash} is not null`,
  must_change_password: users.must_change_password,
};

/** The filters SQL applies; the search is folded and matched after reading (see listPeople). */
function peopleConditions(schoolId: string, filters: z.output<typeof listPeopleInput>): SQL[] {
  const conditions: SQL[] = [eq(users.school_id, schoolId)];
  if (filters.role) {
    conditions.push(
      sql`exists (select 1 from ${instituteMemberships} m where m.user_id = ${userIdColumn} and m.institute_id = ${schoolId} and m.role = ${filters.role})`,
    );
  }
  if (filters.class_id) {
    conditions.push(
      sql`(exists (select 1 from ${enrollments} e where e.class_id = ${filters.class_id} and e.student_id = ${userIdColumn} and e.active)
        or exists (select 1 from ${classes} c where c.id = ${filters.class_id} and c.teacher_id = ${userIdColumn}))`,
    );
  }
  if (filters.status === "active") conditions.push(isNull(users.deactivated_at));
  if (filters.status === "deactivated") conditions.push(isNotNull(users.deactivated_at));
  return conditions;
}

/**
 * The people of the caller's school by surname (lib/text/names.ts: a collation, not code points), a page at
 * a time with the total that match. The search ignores case, accents and apostrophe style in the name,
 * email and username; PostgreSQL (and PGlite) cannot fold as the browser does, so the school's people that
 * pass the other filters are read (id and the searched columns only), folded, sorted and paged here.
 */
export async function listPeople(tx: Tx, callerId: string, input: z.input<typeof listPeopleInput>) {
  const filters = listPeopleInput.parse(input);
  const schoolId = await administeredSchool(tx, callerId);
  const candidates = await tx
    .select({ id: users.id, full_name: users.full_name, email: users.email, username: users.username })
    .from(users)
    .where(and(...peopleConditions(schoolId, filters)));
  const search = foldName(filters.search ?? "");
  const matching = sortByName(
    candidates.filter((person) => foldedIncludes(person.full_name, search) || foldedIncludes(person.email, search) || foldedIncludes(person.username, search)),
    (person) => person.full_name,
    (person) => person.id,
  );
  const offset = filters.offset ?? 0;
  const pageIds = matching.slice(offset, offset + (filters.limit ?? DEFAULT_PAGE)).map((person) => person.id);
  const rows = pageIds.length > 0 ? await tx.select(personColumns).from(users).where(and(eq(users.school_id, schoolId), inArray(users.id, pageIds))) : [];
  const byId = new Map(rows.map((row) => [row.id, row]));
  const people = pageIds.flatMap((id) => byId.get(id) ?? []);
  return { people, total: matching.length };
}

/** One person of the caller's school, or not found. */
async function findPerson(tx: Tx, schoolId: string, userId: string) {
  const [person] = await tx
    .select(personColumns)
    .from(users)
    .where(and(eq(users.id, userId), eq(users.school_id, schoolId)));
  if (!person) throw notFound("Person");
  return person;
}

export async function getPerson(tx: Tx, callerId: string, input: z.input<typeof personIdInput>) {
  const { user_id } = personIdInput.parse(input);
  return findPerson(tx, await administeredSchool(tx, callerId), user_id);
}

/** Adds a person to the caller's school, without a password until an admin sets one (resetPassword). */
export async function addPerson(tx: Tx, callerId: string, input: z.input<typeof addPersonInput>) {
  const values = addPersonInput.parse(input);
  const schoolId = await administeredSchool(tx, callerId);
  const classIds = [...new Set(values.class_ids ?? [])];
  if (classIds.length > 0 && values.role !== "student") {
    throw new AppError("invalid", "Only students join classes here: choose a class's teacher on the class's page", "class_ids");
  }
  const found = classIds.length
    ? await tx
        .select({ id: classes.id })
        .from(classes)
        .where(and(inArray(classes.id, classIds), eq(classes.institute_id, schoolId)))
    : [];
  if (found.length !== classIds.length) throw new AppError("invalid", "Choose classes of your school", "class_ids");
  const user = await createUser(tx, {
    email: values.email,
    fullName: values.full_name,
    instituteId: schoolId,
    role: values.role,
    yearGroup: values.year_group || undefined,
  });
  if (classIds.length) await tx.insert(enrollments).values(classIds.map((classId) => ({ class_id: classId, student_id: user.id })));
  return findPerson(tx, schoolId, user.id);
}

/**
 * Serialises changes of roles and activity within one school, so that two admins demoting or
 * deactivating each other at once cannot leave the school without an active admin.
 */
async function lockSchoolAdmins(tx: Tx, schoolId: string) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('school-admins'), hashtext(${schoolId}))`);
}

/** How many active school admins the school keeps when `userId` is no longer one. */
async function otherActiveAdmins(tx: Tx, schoolId: string, userId: string): Promise<number> {
  const [row] = await tx
    .select({ total: count() })
    .from(instituteMemberships)
    .innerJoin(users, eq(users.id, instituteMemberships.user_id))
    .where(
      and(
        eq(instituteMemberships.institute_id, schoolId),
        eq(instituteMemberships.role, "school_admin"),
        isNull(users.deactivated_at),
        sql`${users.id} <> ${userId}`,
      ),
    );
  return Number(row?.total ?? 0);
}

/**
 * Changes a person's details, role (exactly one per person in a school) and activity. An admin cannot
 * demote or deactivate themselves, and the school always keeps an active admin. A deactivated person
 * cannot sign in, and their sessions, tokens and dictation keys stop at once (setUserActive's columns).
 */
export async function editPerson(tx: Tx, callerId: string, input: z.input<typeof editPersonInput> & z.input<typeof personIdInput>) {
  const { user_id } = personIdInput.parse(input);
  const changes = editPersonInput.parse(input);
  const schoolId = await administeredSchool(tx, callerId);
  const person = await findPerson(tx, schoolId, user_id);

  const demoted = changes.role !== undefined && person.roles.includes("school_admin") && changes.role !== "school_admin";
  const deactivated = changes.active === false && person.active;
  if ((demoted || deactivated) && user_id === callerId) {
    throw new AppError("forbidden", demoted ? "You cannot remove your own admin role: ask another admin" : "You cannot deactivate yourself: ask another admin");
  }
  if (demoted || deactivated) {
    await lockSchoolAdmins(tx, schoolId);
    if (person.roles.includes("school_admin") && (await otherActiveAdmins(tx, schoolId, user_id)) === 0) {
      throw new AppError("conflict", "The school needs at least one active admin: make someone else an admin first");
    }
  }

  if (changes.email !== undefined && changes.email !== person.email.toLowerCase() && (await isEmailInUse(tx, changes.email))) throw emailInUse();
  const set: Partial<typeof users.$inferInsert> = {};
  if (changes.full_name !== undefined) set.full_name = changes.full_name;
  if (changes.display_name !== undefined) set.display_name = changes.display_name;
  if (changes.email !== undefined) set.email = changes.email;
  if (changes.year_group !== undefined) set.year_group = changes.year_group || null;
  if (changes.role !== undefined) set.user_type = userTypeOfRole[changes.role];
  if (Object.keys(set).length > 0) {
    try {
      await tx.transaction((savepoint) => savepoint.update(users).set(set).where(eq(users.id, user_id)));
    } catch (error) {
      if (violatedUniqueConstraint(error) === "users_email_lower_key") throw emailInUse();
      throw error;
    }
  }
  if (changes.active !== undefined) await setUserActive(tx, { userId: user_id, active: changes.active });
  if (changes.role !== undefined && (person.roles.length !== 1 || person.roles[0] !== changes.role)) {
    await tx.delete(instituteMemberships).where(and(eq(instituteMemberships.institute_id, schoolId), eq(instituteMemberships.user_id, user_id)));
    await tx.insert(instituteMemberships).values({ institute_id: schoolId, user_id, role: changes.role });
  }
  return findPerson(tx, schoolId, user_id);
}

/**
 * Gives a person a new temporary password and returns it, once: only its hash is stored. Their
 * sessions begun before now are signed out (server/auth/session.ts), and at their next sign-in they
 * must choose their own password before using the app.
 */
export async function resetPassword(tx: Tx, callerId: string, input: z.input<typeof personIdInput>) {
  const { user_id } = personIdInput.parse(input);
  const schoolId = await administeredSchool(tx, callerId);
  await findPerson(tx, schoolId, user_id);
  const temporaryPassword = generateTemporaryPassword();
  await tx
    .update(users)
    .set({ password_hash: await hashPassword(temporaryPassword), must_change_password: true, password_changed_at: new Date() })
    .where(eq(users.id, user_id));
  return { temporary_password: temporaryPassword };
}
