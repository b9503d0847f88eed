import { sql } from "drizzle-orm";
import { z } from "zod";
import { type Tx, rowsOf } from "../db/client";
import { textArray } from "../db/text-array";
import { AppError } from "../errors";
import { findCallerSchool } from "./caller-school";
import { type Role, isSchoolAdmin, roles, staffRoles } from "../../lib/rules/roles";
import { type RosterMapping, guessMapping, mappingProblems, mappingWarnings, rosterFromCsv, sampleValues } from "./roster-mapping";
import { rosterFromOneRoster } from "./roster-oneroster";
import type { Roster, RosterClass, SkippedRow } from "./roster-records";
import { rememberedMappingIs, recallMapping } from "./roster-memory";
import { placeholderEmail } from "./placeholder-email";
import { type CheckedPerson, MAX_EMAIL, checkPerson } from "./roster-rows";
import { textProblem } from "../../lib/rules/input-rules";
import type { RosterSource } from "./roster-source";
import { availableUsernames, userTypeOfRole } from "./users";

/**
 * The plan of a roster import: who is created, updated, unchanged or skipped (and why), which classes
 * are created or updated, and which enrollments and main teachers are added. Preview and apply run this
 * same plan; applying writes it (roster-apply.ts). Matching stays inside the school: a person by SIS id
 * (when the file has ids), else email (any case), else username; a class by SIS id, else its name. An
 * import adds and updates, and never deletes, deactivates, removes a role or touches a password.
 */

const personOutput = z.object({
  row: z.string(),
  name: z.string(),
  email: z.string().nullable(),
  username: z.string(),
  role: z.enum(roles),
  yearGroup: z.string().nullable(),
  classes: z.array(z.string()),
  /** What the import changes ("year group: 9 → 10", "joins 10A"); empty when created or unchanged. */
  changes: z.array(z.string()),
  /** What the import leaves as it is although the file differs ("role stays teacher: …"). */
  notes: z.array(z.string()),
});
const classOutput = z.object({
  row: z.string(),
  name: z.string(),
  sisId: z.string().nullable(),
  /** The main teacher's name, once imported. */
  teacher: z.string().nullable(),
  /** The other teachers' names, once imported. */
  otherTeachers: z.array(z.string()),
  changes: z.array(z.string()),
  /** What the file says of the class that the import cannot do (a teacher who is not staff of the school). */
  notes: z.array(z.string()),
});
const skippedOutput = z.object({ row: z.string(), name: z.string().nullable(), reason: z.string() });
const mappingOutput = z.object({
  fullName: z.string().nullish(),
  firstName: z.string().nullish(),
  legalFirstName: z.string().nullish(),
  lastName: z.string().nullish(),
  email: z.string().nullish(),
  username: z.string().nullish(),
  yearGroup: z.string().nullish(),
  role: z.string().nullish(),
  sisId: z.string().nullish(),
  teacher: z.string().nullish(),
  classCodes: z.array(z.string()),
});

export const rosterImportOutput = z.object({
  format: z.enum(["csv", "oneroster"]),
  /** The CSV's columns with a few of their values (empty for a OneRoster bundle, which needs no mapping). */
  columns: z.array(z.object({ name: z.string(), samples: z.array(z.string()) })),
  /** The mapping used: the one given, else the one guessed from the header (null for OneRoster). */
  mapping: mappingOutput.nullable(),
  /** Set when the mapping is the one the school chose for this header on an earlier import, and when. */
  mappingRemembered: z.object({ savedAt: z.date() }).nullable(),
  /** What keeps the mapping from being imported; the plan is empty while there is any. */
  mappingProblems: z.array(z.string()),
  /** What the mapping does that the person choosing it should know (a name from one part only); the import still runs. */
  mappingWarnings: z.array(z.string()),
  /** True once written (apply); false for a preview. */
  applied: z.boolean(),
  counts: z.object({
    create: z.number().int(),
    update: z.number().int(),
    unchanged: z.number().int(),
    skip: z.number().int(),
    classesCreate: z.number().int(),
    classesUpdate: z.number().int(),
    classesUnchanged: z.number().int(),
    enrollmentsCreate: z.number().int(),
  }),
  people: z.object({ create: z.array(personOutput), update: z.array(personOutput), unchanged: z.array(personOutput) }),
  classes: z.object({ create: z.array(classOutput), update: z.array(classOutput), unchanged: z.array(classOutput) }),
  skipped: z.array(skippedOutput),
});
export type RosterImportResult = z.output<typeof rosterImportOutput>;
type PlannedPerson = z.output<typeof personOutput>;
type PlannedClass = z.output<typeof classOutput>;

/** What apply writes, besides the result it answers. */
export interface RosterWrites {
  instituteId: string;
  newUsers: {
    id: string;
    email: string;
    username: string;
    full_name: string;
    display_name: string;
    user_type: (typeof userTypeOfRole)[Role];
    year_group: string | null;
    sis_id: string | null;
  }[];
  userUpdates: { id: string; email: string | null; full_name: string | null; year_group: string | null; sis_id: string | null }[];
  newMemberships: { user_id: string; role: Role }[];
  newClasses: { id: string; name: string; sis_id: string | null; subject: string | null; teacher_id: string | null }[];
  classUpdates: { id: string; name: string; sis_id: string | null; subject: string | null; teacher_id: string | null }[];
  enrollments: { class_id: string; student_id: string }[];
  /** Other teachers of classes (the main teacher is in newClasses and classUpdates). */
  classTeachers: { class_id: string; teacher_id: string }[];
  /** The CSV mapping to remember for its header set once applied (null: OneRoster, or nothing to import). */
  mapping: { columns: string[]; mapping: RosterMapping } | null;
}

export interface RosterPlan {
  result: RosterImportResult;
  writes: RosterWrites;
}

interface ExistingUser {
  id: string;
  email: string;
  username: string;
  full_name: string;
  year_group: string | null;
  sis_id: string | null;
  roles: Role[];
}

interface ExistingClass {
  id: string;
  name: string;
  sis_id: string | null;
  subject: string | null;
  teacher_id: string | null;
}

const notAdmin = () => new AppError("forbidden", "Only a school admin can import people into the school");

/** The caller's school, when they are its admin (403 otherwise: a teacher, or someone with no school). */
export async function importingSchool(tx: Tx, callerId: string): Promise<string> {
  const school = await findCallerSchool(tx, callerId);
  if (!school || !isSchoolAdmin(school.roles)) throw notAdmin();
  return school.instituteId;
}


/** The plan for a school already authorised (the edges after importingSchool; the CLI with service rights). */
export async function planRosterImportInto(tx: Tx, instituteId: string, source: RosterSource, given?: RosterMapping | null): Promise<RosterPlan> {
  if (source.format === "oneroster") {
    const header = { format: "oneroster" as const, columns: [], mapping: null, mappingRemembered: null, mappingProblems: [], mappingWarnings: [] };
    return planRoster(tx, instituteId, rosterFromOneRoster(source.users, source.classes, source.enrollments), header, null);
  }
  const { columns } = source.table;
  // The mapping the school chose for this header set, unless the caller gives one; else a guess from the header words.
  const remembered = await recallMapping(tx, instituteId, columns);
  const usable = remembered && mappingProblems(remembered.mapping, columns).length === 0 ? remembered : null;
  const mapping = given ?? usable?.mapping ?? guessMapping(columns);
  const header = {
    format: "csv" as const,
    columns: sampleValues(source.table),
    mapping,
    mappingRemembered: usable && rememberedMappingIs(usable.mapping, mapping) ? { savedAt: usable.savedAt } : null,
    mappingProblems: mappingProblems(mapping, columns),
    mappingWarnings: mappingWarnings(mapping, source.table),
  };
  if (header.mappingProblems.length > 0) return planRoster(tx, instituteId, { people: [], classes: [], skipped: [] }, header, null);
  return planRoster(tx, instituteId, rosterFromCsv(source.table, mapping), header, { columns, mapping });
}

type Header = Pick<RosterImportResult, "format" | "columns" | "mapping" | "mappingRemembered" | "mappingProblems" | "mappingWarnings">;

async function planRoster(tx: Tx, instituteId: string, roster: Roster, header: Header, mapping: RosterWrites["mapping"]): Promise<RosterPlan> {
  const skipped: SkippedRow[] = [...roster.skipped];
  const classByKey = new Map(roster.classes.map((rosterClass) => [rosterClass.key, rosterClass]));

  // 1. Each person alone, then duplicates within the file.
  const checked: CheckedPerson[] = [];
  const firstRowOf = new Map<string, string>();
  for (const person of roster.people) {
    const names = person.classes.map((entry) => classByKey.get(entry.key)?.name ?? entry.key);
    const result = checkPerson(person, names);
    if (!result.ok) {
      skipped.push({ row: person.row, name: person.fullName, reason: result.reason });
      continue;
    }
    const keys = [person.sisId && `sis:${person.sisId}`, result.person.email && `email:${result.person.email}`, result.person.username && `username:${result.person.username}`].filter(
      (key): key is string => Boolean(key),
    );
    const earlier = keys.map((key) => firstRowOf.get(key)).find(Boolean);
    if (earlier) {
      skipped.push({ row: person.row, name: person.fullName, reason: `duplicate of ${earlier}` });
      continue;
    }
    for (const key of keys) firstRowOf.set(key, person.row);
    checked.push(result.person);
  }

  // 2. One lookup per kind: the school's people these rows may be, and which emails and usernames anyone holds.
  const emails = checked.map((person) => person.email ?? (person.username ? placeholderEmail(person.username) : null)).filter((email): email is string => email !== null);
  const usernames = checked.flatMap((person) => (person.username ? [person.username] : []));
  const sisIds = checked.flatMap((person) => (person.source.sisId ? [person.source.sisId] : []));
  const existing = await schoolUsersMatching(tx, instituteId, sisIds, emails, usernames);
  const emailsInUse = new Set(
    rowsOf<{ email: string }>(await tx.execute(sql`select app.emails_in_use(${textArray(emails)}) as email`)).map((row) => row.email),
  );
  const usernamesInUse = new Set(
    rowsOf<{ username: string }>(await tx.execute(sql`select app.usernames_in_use(${textArray(usernames)}) as username`)).map((row) => row.username),
  );
  const bySis = new Map(existing.filter((user) => user.sis_id).map((user) => [user.sis_id!, user]));
  const byEmail = new Map(existing.map((user) => [user.email.toLowerCase(), user]));
  const byUsername = new Map(existing.map((user) => [user.username, user]));

  // 3. People: matched (update or unchanged) or new (create), or skipped when an account elsewhere holds their email or username.
  type Kept = { person: CheckedPerson; planned: PlannedPerson; id: string; roles: Role[]; isNew: boolean };
  const kept: Kept[] = [];
  const toCreate: { person: CheckedPerson; email: string }[] = [];
  const writes: RosterWrites = { instituteId, newUsers: [], userUpdates: [], newMemberships: [], newClasses: [], classUpdates: [], enrollments: [], classTeachers: [], mapping };
  const matchedIds = new Set<string>();
  for (const person of checked) {
    const { source } = person;
    const match =
      (source.sisId ? bySis.get(source.sisId) : undefined) ??
      (person.email ? byEmail.get(person.email) : undefined) ??
      (person.username ? byUsername.get(person.username) : undefined);
    const skipRow = (reason: string) => skipped.push({ row: source.row, name: person.fullName, reason });
    if (match && matchedIds.has(match.id)) {
      skipRow(`the same Markbook account as ${kept.find((entry) => entry.id === match.id)?.planned.row ?? "an earlier row"}`);
      continue;
    }
    if (match) {
      if (person.email && person.email !== match.email.toLowerCase() && emailsInUse.has(person.email)) {
        skipRow("email already used by another Markbook account");
        continue;
      }
      if (source.sisId && match.sis_id && match.sis_id !== source.sisId) {
        skipRow(`${match.email} already has another ID in the school's system (${match.sis_id})`);
        continue;
      }
      matchedIds.add(match.id);
      const planned = plannedUpdate(person, match, writes);
      kept.push({ person, planned, id: match.id, roles: match.roles.length > 0 ? match.roles : [person.role], isNew: false });
      continue;
    }
    const email = person.email ?? placeholderEmail(person.username!);
    if (emailsInUse.has(email)) skipRow(person.email ? "email already used by another Markbook account" : `username "${person.username}" already used by another Markbook account`);
    // A username taken elsewhere is this person's identity only when the row has no email or SIS id.
    else if (person.username && usernamesInUse.has(person.username) && !person.email && !source.sisId) {
      skipRow(`username "${person.username}" already used by another Markbook account`);
    } else toCreate.push({ person, email });
  }

  // Usernames of new people: the file's, else one from their email. The file's come first in the list so
  // that the picked ones go around them (a free username is its own base: availableUsernames keeps it).
  const picked = await availableUsernames(tx, toCreate.map(({ person, email }) => (person.username ? `${person.username}@file` : email)));
  toCreate.forEach(({ person, email }, index) => {
    const id = crypto.randomUUID();
    const username = picked[index]!;
    const { source } = person;
    writes.newUsers.push({
      id,
      email,
      username,
      full_name: person.fullName,
      display_name: source.givenName ?? person.fullName.split(/\s+/)[0]!,
      user_type: userTypeOfRole[person.role],
      year_group: source.yearGroup,
      sis_id: source.sisId,
    });
    writes.newMemberships.push({ user_id: id, role: person.role });
    const planned: PlannedPerson = {
      row: source.row,
      name: person.fullName,
      email: person.email,
      username,
      role: person.role,
      yearGroup: source.yearGroup,
      classes: [],
      changes: [],
      notes: person.username && person.username !== username ? [`username ${person.username} is taken elsewhere: gets ${username}`] : [],
    };
    kept.push({ person, planned, id, roles: [person.role], isNew: true });
  });

  // 4. Classes, then who joins them. A CSV's classes are the codes of the people imported (not of skipped rows).
  const referenced = new Set(kept.flatMap(({ person }) => person.source.classes.map((entry) => entry.key)));
  const rosterClasses = header.format === "csv" ? roster.classes.filter((rosterClass) => referenced.has(rosterClass.key)) : roster.classes;
  const classPlan = await planClasses(tx, instituteId, rosterClasses, skipped, writes);
  const teacherNames = new Map(kept.map((entry) => [entry.id, entry.person.fullName]));
  const existingEnrollments = await schoolEnrollments(tx, instituteId);
  // The Teacher column first: it names a class's teacher outright, where a teacher's row only lists the classes they teach.
  await planNamedTeachers(tx, instituteId, kept, classPlan.byKey, teacherNames);
  for (const { person, planned, id, roles: held, isNew } of kept) {
    for (const { key, primary } of person.source.classes) {
      const target = classPlan.byKey.get(key);
      if (!target) continue; // a class skipped above says why
      planned.classes.push(target.name);
      if (held.includes("student")) {
        const enrollment = existingEnrollments.get(`${target.id}:${id}`);
        if (enrollment === true) continue;
        writes.enrollments.push({ class_id: target.id, student_id: id });
        if (!isNew) planned.changes.push(enrollment === false ? `joins ${target.name} again` : `joins ${target.name}`);
      } else if (held.some((role) => staffRoles.includes(role))) {
        // OneRoster names the main teacher (primary); a CSV's first teacher of a class without one becomes it.
        // Every other teacher of the class in the file teaches it too.
        const becomesMain = header.format === "oneroster" ? primary : target.teacherId === null;
        if (becomesMain && target.teacherId !== id) target.setTeacher(id);
        else if (target.teacherId !== id) target.addOther(id);
      }
    }
  }
  classPlan.finish(teacherNames);

  const people = { create: [] as PlannedPerson[], update: [] as PlannedPerson[], unchanged: [] as PlannedPerson[] };
  for (const { planned, isNew } of kept) (isNew ? people.create : planned.changes.length > 0 ? people.update : people.unchanged).push(planned);
  const result: RosterImportResult = {
    ...header,
    applied: false,
    counts: {
      create: people.create.length,
      update: people.update.length,
      unchanged: people.unchanged.length,
      skip: skipped.length,
      classesCreate: classPlan.result.create.length,
      classesUpdate: classPlan.result.update.length,
      classesUnchanged: classPlan.result.unchanged.length,
      enrollmentsCreate: writes.enrollments.length,
    },
    people,
    classes: classPlan.result,
    skipped,
  };
  return { result, writes };
}

/** What changes for a person the school already has; adds the writes. */
function plannedUpdate(person: CheckedPerson, match: ExistingUser, writes: RosterWrites): PlannedPerson {
  const { source } = person;
  const changes: string[] = [];
  const notes: string[] = [];
  const update = { id: match.id, email: null as string | null, full_name: null as string | null, year_group: null as string | null, sis_id: null as string | null };
  // A blank cell leaves a value as it is: an import does not erase.
  if (person.email && person.email !== match.email.toLowerCase()) {
    update.email = person.email;
    changes.push(`email: ${match.email} → ${person.email}`);
  }
  if (person.fullName !== match.full_name) {
    update.full_name = person.fullName;
    changes.push(`name: ${match.full_name} → ${person.fullName}`);
  }
  if (source.yearGroup && source.yearGroup !== match.year_group) {
    update.year_group = source.yearGroup;
    changes.push(`year group: ${match.year_group ?? "none"} → ${source.yearGroup}`);
  }
  if (source.sisId && !match.sis_id) {
    update.sis_id = source.sisId;
    changes.push(`ID in the school's system: ${source.sisId}`);
  }
  if (changes.length > 0) writes.userUpdates.push(update);
  if (match.roles.length === 0) {
    writes.newMemberships.push({ user_id: match.id, role: person.role });
    changes.push(`joins the school as ${person.role.replace("_", " ")}`);
  } else if (!match.roles.includes(person.role)) {
    notes.push(`role stays ${match.roles.map((role) => role.replace("_", " ")).join(" and ")}: change roles on the People page`);
  }
  return {
    row: source.row,
    name: person.fullName,
    email: person.email ?? match.email,
    username: match.username,
    role: match.roles.includes(person.role) || match.roles.length === 0 ? person.role : match.roles[0]!,
    yearGroup: source.yearGroup ?? match.year_group,
    classes: [],
    changes,
    notes,
  };
}

/** The school's people with one of these SIS ids, emails or usernames, with their roles in the school. */
async function schoolUsersMatching(tx: Tx, instituteId: string, sisIds: string[], emails: string[], usernames: string[]): Promise<ExistingUser[]> {
  const rows = rowsOf<Omit<ExistingUser, "roles"> & { role: Role | null }>(
    await tx.execute(sql`
      select u.id, u.email, u.username, u.full_name, u.year_group, u.sis_id, m.role
      from users u
      left join institute_memberships m on m.user_id = u.id and m.institute_id = u.school_id
      where u.school_id = ${instituteId}
        and (u.sis_id = any(${textArray(sisIds)}) or lower(u.email) = any(${textArray(emails)}) or u.username = any(${textArray(usernames)}))`),
  );
  const users = new Map<string, ExistingUser>();
  for (const { role, ...user } of rows) {
    const entry = users.get(user.id) ?? { ...user, roles: [] };
    if (role) entry.roles.push(role);
    users.set(user.id, entry);
  }
  return [...users.values()];
}

/** The school's enrollments: "class:student" → active. */
async function schoolEnrollments(tx: Tx, instituteId: string): Promise<Map<string, boolean>> {
  const rows = rowsOf<{ class_id: string; student_id: string; active: boolean }>(
    await tx.execute(sql`
      select e.class_id, e.student_id, e.active from enrollments e
      join classes c on c.id = e.class_id where c.institute_id = ${instituteId}`),
  );
  return new Map(rows.map((row) => [`${row.class_id}:${row.student_id}`, row.active]));
}

interface ClassTarget {
  id: string;
  name: string;
  teacherId: string | null;
  setTeacher(id: string): void;
  /** Adds an other teacher (nothing when they are the main teacher or one already). */
  addOther(id: string): void;
  /** A note on the class for the preview, once however many rows say it. */
  note(text: string): void;
}

type KeptPerson = { person: CheckedPerson; planned: PlannedPerson; id: string; roles: Role[] };

/** A teacher as a file's Teacher column names them: their username or e-mail, in any case. */
const teacherRefKey = (ref: string) => ref.trim().toLowerCase();

/**
 * The teachers a CSV's Teacher column names, made teachers of the row's classes: the main teacher of a
 * class that has none, else one of its other teachers. A name is matched to the school's staff (or staff
 * of this same file) by username or e-mail; one that matches nobody is a note on the class, not a failure.
 */
async function planNamedTeachers(tx: Tx, instituteId: string, kept: KeptPerson[], byKey: Map<string, ClassTarget>, names: Map<string, string>) {
  const refs = [...new Set(kept.flatMap(({ person }) => person.source.teachers.map(teacherRefKey)))].filter((ref) => ref.length > 0 && ref.length <= MAX_EMAIL && textProblem(ref) === null);
  if (refs.length === 0) return;
  const staff = new Map<string, string>();
  const rows = rowsOf<{ id: string; email: string; username: string; full_name: string }>(
    await tx.execute(sql`
      select distinct u.id, u.email, u.username, u.full_name from users u
      join institute_memberships m on m.user_id = u.id and m.institute_id = ${instituteId} and m.role <> 'student'
      where lower(u.email) = any(${textArray(refs)}) or u.username = any(${textArray(refs)})`),
  );
  for (const row of rows) {
    staff.set(row.email.toLowerCase(), row.id);
    staff.set(row.username, row.id);
    names.set(row.id, row.full_name);
  }
  // Staff of this file, new or not: a teacher row and the students' rows that name them come together.
  for (const { person, planned, id, roles: held } of kept) {
    if (!held.some((role) => staffRoles.includes(role))) continue;
    for (const key of [person.email, person.username, planned.username, planned.email]) if (key) staff.set(key.toLowerCase(), id);
  }
  for (const { person } of kept) {
    const { source } = person;
    if (source.teachers.length === 0) continue;
    const targets = source.classes.map((entry) => byKey.get(entry.key)).filter((target): target is ClassTarget => target !== undefined);
    if (targets.length === 0) continue;
    const count = source.teachers.length;
    if (count !== 1 && count !== targets.length) {
      for (const target of targets) target.note(`${source.row} names ${count} teachers for ${targets.length} classes, so which teaches which is unclear: no teacher is set from that row`);
      continue;
    }
    targets.forEach((target, index) => {
      const ref = source.teachers[count === 1 ? 0 : index]!;
      const teacherId = staff.get(teacherRefKey(ref));
      if (!teacherId) target.note(`teacher "${ref.slice(0, 80)}" is not staff of the school (no username or e-mail matches): set the class's teachers on its page`);
      else if (target.teacherId === null) target.setTeacher(teacherId);
      else target.addOther(teacherId);
    });
  }
}

/** Classes of the roster matched to the school's (by SIS id, else name), created or updated. */
async function planClasses(tx: Tx, instituteId: string, rosterClasses: RosterClass[], skipped: SkippedRow[], writes: RosterWrites) {
  const existing = rowsOf<ExistingClass>(
    await tx.execute(sql`select id, name, sis_id, subject, teacher_id from classes where institute_id = ${instituteId}`),
  );
  const othersOf = new Map<string, Set<string>>();
  for (const row of rowsOf<{ class_id: string; teacher_id: string }>(
    await tx.execute(sql`select ct.class_id, ct.teacher_id from class_teachers ct join classes c on c.id = ct.class_id where c.institute_id = ${instituteId}`),
  )) {
    othersOf.set(row.class_id, (othersOf.get(row.class_id) ?? new Set()).add(row.teacher_id));
  }
  const teacherNames = new Map(
    rowsOf<{ id: string; full_name: string }>(
      await tx.execute(sql`
        select u.id, u.full_name from users u
        where u.id in (select teacher_id from classes where institute_id = ${instituteId})
           or u.id in (select ct.teacher_id from class_teachers ct join classes c on c.id = ct.class_id where c.institute_id = ${instituteId})`),
    ).map((row) => [row.id, row.full_name]),
  );
  const bySis = new Map(existing.filter((row) => row.sis_id).map((row) => [row.sis_id!, row]));
  const byName = new Map(existing.map((row) => [row.name, row]));
  const byLowerName = new Map(existing.map((row) => [row.name.toLowerCase(), row]));
  const namesTaken = new Set(existing.map((row) => row.name));
  const byKey = new Map<string, ClassTarget>();
  type Entry = { planned: PlannedClass; isNew: boolean; before: ExistingClass | null; after: ExistingClass; othersBefore: Set<string>; others: Set<string>; notes: Set<string> };
  const entries: Entry[] = [];

  for (const rosterClass of rosterClasses) {
    const match = (rosterClass.sisId ? bySis.get(rosterClass.sisId) : undefined) ?? byName.get(rosterClass.name) ?? byLowerName.get(rosterClass.name.toLowerCase());
    if (match && rosterClass.sisId && match.sis_id && match.sis_id !== rosterClass.sisId) {
      skipped.push({ row: rosterClass.row, name: rosterClass.name, reason: `a class named ${match.name} already has another ID in the school's system (${match.sis_id})` });
      continue;
    }
    if (rosterClass.name.length > 200) continue; // its people's rows are skipped for it
    const after: ExistingClass = match
      ? { ...match, sis_id: match.sis_id ?? rosterClass.sisId, subject: rosterClass.subject ?? match.subject }
      : { id: crypto.randomUUID(), name: rosterClass.name, sis_id: rosterClass.sisId, subject: rosterClass.subject, teacher_id: null };
    const planned: PlannedClass = { row: rosterClass.row, name: after.name, sisId: after.sis_id, teacher: null, otherTeachers: [], changes: [], notes: [] };
    if (match && match.name !== rosterClass.name && rosterClass.sisId) {
      if (namesTaken.has(rosterClass.name)) planned.changes.push(`keeps its name ${match.name}: another class is named ${rosterClass.name}`);
      else {
        namesTaken.delete(match.name);
        namesTaken.add(rosterClass.name);
        after.name = rosterClass.name;
        planned.name = rosterClass.name;
      }
    }
    if (!match) namesTaken.add(rosterClass.name);
    const othersBefore = new Set(match ? (othersOf.get(match.id) ?? []) : []);
    const entry: Entry = { planned, isNew: !match, before: match ?? null, after, othersBefore, others: new Set(othersBefore), notes: new Set() };
    entries.push(entry);
    byKey.set(rosterClass.key, {
      id: after.id,
      name: after.name,
      get teacherId() {
        return after.teacher_id;
      },
      setTeacher(id) {
        after.teacher_id = id;
      },
      addOther(id) {
        if (id !== after.teacher_id) entry.others.add(id);
      },
      note(text) {
        entry.notes.add(text);
      },
    });
  }

  const result = { create: [] as PlannedClass[], update: [] as PlannedClass[], unchanged: [] as PlannedClass[] };
  return {
    byKey,
    result,
    /** Once the teachers are known: the changes, the writes and the lists. */
    finish(newTeacherNames: Map<string, string>) {
      const nameOf = (id: string | null) => (id ? (newTeacherNames.get(id) ?? teacherNames.get(id) ?? null) : null);
      const byName = (a: string, b: string) => a.localeCompare(b);
      for (const { planned, isNew, before, after, othersBefore, others, notes } of entries) {
        // The main teacher is never also an other teacher (a teacher made main after being added as an other).
        others.delete(after.teacher_id ?? "");
        const added = [...others].filter((id) => !othersBefore.has(id));
        planned.teacher = nameOf(after.teacher_id);
        planned.otherTeachers = [...others].map((id) => nameOf(id) ?? "").filter(Boolean).sort(byName);
        planned.notes = [...notes];
        for (const id of added) writes.classTeachers.push({ class_id: after.id, teacher_id: id });
        const teachersAdded = added.map((id) => nameOf(id) ?? "").filter(Boolean).sort(byName);
        if (isNew) {
          writes.newClasses.push(after);
          result.create.push(planned);
          continue;
        }
        if (before!.name !== after.name) planned.changes.push(`name: ${before!.name} → ${after.name}`);
        if (before!.sis_id !== after.sis_id) planned.changes.push(`ID in the school's system: ${after.sis_id}`);
        if (before!.subject !== after.subject) planned.changes.push(`subject: ${before!.subject ?? "none"} → ${after.subject}`);
        if (before!.teacher_id !== after.teacher_id) planned.changes.push(`main teacher: ${nameOf(before!.teacher_id) ?? "none"} → ${planned.teacher}`);
        const rowChanged = planned.changes.some((change) => !change.startsWith("keeps"));
        if (rowChanged) writes.classUpdates.push(after);
        if (teachersAdded.length > 0) planned.changes.push(`${teachersAdded.length === 1 ? "teacher" : "teachers"} added: ${teachersAdded.join(", ")}`);
        (rowChanged || teachersAdded.length > 0 ? result.update : result.unchanged).push(planned);
      }
    },
  };
}
