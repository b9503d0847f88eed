import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import { hashPassword } from "../auth/passwords";
import { createClass } from "../classroom/classes";
import { enrollStudent } from "../classroom/enrollments";
import { demoGraphExists, seedDemoGraph } from "./graph";
import { createTemplateInput, insertTemplate, replaceTemplate, saveTemplateInput } from "../exam/templates";
import { createInstitute } from "../identity/institutes";
import { logger } from "../logger";
import { type Role, createUser, findUserByEmail } from "../identity/users";
import { objectStorage } from "../storage/configured-storage";
import { putObjectBytes } from "../storage/object-storage";
import { DEMO_PAPER_BUCKET } from "../storage-settings";
import type { Db, Tx } from "../db/client";
import { type GeneratedPaper, demoPaper, generateDemoPaper } from "../exam/demo-paper";
import { demoPaperCanvas } from "../exam/demo-paper/canvas";
import { DEMO_INSTITUTE_NAME, DEMO_MARKER_EMAIL, DEMO_PASSWORD, demoStaff } from "./school";
import { asService } from "../db/rls";
import { examPapers, files, instituteMemberships, timetableEntries, timetables } from "../db/schema";

// The demo school -------------------------------------------------------------------------------

/** 60 students, in class order: 20 in 10A, 20 in 10B, 20 in 11A. Emails are student01 … student60. */
const studentNames = [
  "Amelia Hughes", "Oliver Bennett", "Isla Robinson", "Noah Khan", "Ava Thompson", "Leo Fernandes",
  "Mia Clarke", "Arthur Wright", "Freya Patel", "George Adeyemi", "Sophie Turner", "Harry Nowak",
  "Grace O'Connor", "Jacob Lewis", "Ruby Ahmed", "Ethan Walker", "Chloe Murphy", "Samuel Osei",
  "Evie Campbell", "Thomas Hall",
  "Poppy Singh", "Alfie Evans", "Lily Chen", "Oscar Davies", "Ella Morgan", "Henry Kowalski",
  "Daisy Roberts", "Max Ibrahim", "Zara Hussain", "Charlie Green", "Florence Ward", "Archie Mensah",
  "Phoebe Scott", "Joshua Reid", "Matilda Young", "Rory Sullivan", "Hannah Rahman", "Finley Baker",
  "Imogen Price", "Yusuf Ali",
  "Alice Morris", "Dylan Jones", "Layla Okonkwo", "Reuben Cooper", "Maya Sharma", "Theo Richardson",
  "Erin Kelly", "Kai Nakamura", "Jessica Barnes", "Lucas Silva", "Amber Foster", "Ibrahim Yilmaz",
  "Niamh Gallagher", "Elliot Ward-Smith", "Priya Desai", "Louis Martin", "Scarlett Hayes", "Aaron Boateng",
  "Eleanor Fisher", "Kian Doyle",
];

const demoClasses = [
  { key: "10A", name: "10A Mathematics", subject: "Mathematics", teacher: "teacher@northfield.example", room: "M1", firstStudent: 1 },
  { key: "10B", name: "10B Mathematics", subject: "Mathematics", teacher: "teacher2@northfield.example", room: "M2", firstStudent: 21 },
  { key: "11A", name: "11A Physics", subject: "Physics", teacher: "head@northfield.example", room: "S1", firstStudent: 41 },
] as const;
const STUDENTS_PER_CLASS = 20;

const periods = [
  { start: "08:50", end: "09:50" },
  { start: "09:50", end: "10:50" },
  { start: "11:10", end: "12:10" },
  { start: "12:10", end: "13:10" },
  { start: "14:00", end: "15:00" },
];

/**
 * The week, one line per day (ISO day 1 = Monday), periods separated by "|": the classes taught in
 * that period. Each class has its own teacher and room, so no teacher or room is double-booked.
 */
const week: Record<number, string> = {
  1: "10A 11A | 10B     | 10A 10B | 11A     | 10B 11A",
  2: "10B     | 10A 11A | 11A     | 10A 10B |        ",
  3: "10A 10B | 11A     | 10B     | 10A     | 11A    ",
  4: "11A     | 10A 10B | 10A 11A |         | 10B    ",
  5: "10B 11A | 10A     | 11A     | 10B     | 10A    ",
};

const PAPER_KEY = `exam-papers/${demoPaper.id}.pdf`;
const TEMPLATE_OWNER = "teacher@northfield.example";
/** Any constant: serialises two servers seeding one PostgreSQL database at the same moment. */
const SEED_LOCK_KEY = 7_263_402;

// Seeding ---------------------------------------------------------------------------------------

const studentEmail = (index: number) => `student${String(index).padStart(2, "0")}@northfield.example`;

interface Person {
  email: string;
  fullName: string;
  roles: Role[];
}

const people: Person[] = [
  ...demoStaff,
  ...studentNames.map((fullName, index) => ({ email: studentEmail(index + 1), fullName, roles: ["student"] as Role[] })),
];

/** The demo institute's id, found by its marker account, or null when the demo school is absent. */
async function findDemoSchool(tx: Tx): Promise<string | null> {
  const marker = await findUserByEmail(tx, DEMO_MARKER_EMAIL);
  return marker?.school_id ?? null;
}

/**
 * Seeds Northfield Academy: staff and students, classes, a week's timetable, a catalogue paper with
 * its PDF and a ready template over it. Does nothing when the demo school already exists.
 */
export async function seedDemoSchool(db: Db): Promise<{ instituteId: string; created: boolean }> {
  const existing = await asService(db, findDemoSchool);
  if (existing) {
    await seedDemoGraphOnce(db, existing);
    return { instituteId: existing, created: false };
  }

  // scrypt runs on libuv's thread pool: the 64 hashes run side by side, and alongside the inserts.
  const hashing = Promise.all(people.map(() => hashPassword(DEMO_PASSWORD)));
  hashing.catch(() => {}); // awaited below; this only keeps an early exit from leaving it unhandled
  const paper = await generateDemoPaper();
  await putObjectBytes(objectStorage(), DEMO_PAPER_BUCKET, PAPER_KEY, paper.bytes, { contentType: "application/pdf" });

  const seeded = await asService(db, async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK_KEY})`);
    const seededMeanwhile = await findDemoSchool(tx);
    if (seededMeanwhile) return { instituteId: seededMeanwhile, created: false };

    const institute = await createInstitute(tx, { name: DEMO_INSTITUTE_NAME });
    const userIds = await createPeople(tx, institute.id, hashing);
    const classIds = await createClasses(tx, institute.id, userIds);
    await createTimetable(tx, institute.id, userIds, classIds);
    await createPaperAndTemplate(tx, institute.id, userIds.get(TEMPLATE_OWNER)!, paper);
    return { instituteId: institute.id, created: true };
  });
  await seedDemoGraphOnce(db, seeded.instituteId);
  return seeded;
}

/**
 * The demo graphs (server/demo/graph.ts), written after the school commits and whenever they
 * are missing (e.g. after switching to Neo4j). A graph failure is logged, not fatal: everything but
 * graph browsing works without it, and the next start tries again.
 */
async function seedDemoGraphOnce(db: Db, instituteId: string): Promise<void> {
  try {
    if (!(await demoGraphExists(db, instituteId))) await seedDemoGraph(db, instituteId);
  } catch (error) {
    logger.error("Could not seed the demo graph; the next start tries again", error);
  }
}

async function createPeople(tx: Tx, instituteId: string, hashing: Promise<string[]>) {
  const ids = new Map<string, string>();
  for (const person of people) {
    const [firstRole, ...otherRoles] = person.roles;
    const user = await createUser(tx, { email: person.email, fullName: person.fullName, instituteId, role: firstRole });
    for (const role of otherRoles) {
      await tx.insert(instituteMemberships).values({ institute_id: instituteId, user_id: user.id, role });
    }
    ids.set(person.email, user.id);
  }
  // One statement for the 64 hashes computed in parallel meanwhile.
  const passwordHashes = await hashing;
  const rows = people.map((person, index) => sql`(${ids.get(person.email)!}::uuid, ${passwordHashes[index]!})`);
  await tx.execute(
    sql`update users set password_hash = hashes.hash from (values ${sql.join(rows, sql`, `)}) as hashes(id, hash) where users.id = hashes.id`,
  );
  return ids;
}

async function createClasses(tx: Tx, instituteId: string, userIds: Map<string, string>) {
  const classIds = new Map<string, string>();
  for (const spec of demoClasses) {
    const created = await createClass(tx, {
      instituteId,
      name: spec.name,
      subject: spec.subject,
      teacherId: userIds.get(spec.teacher)!,
    });
    for (let index = spec.firstStudent; index < spec.firstStudent + STUDENTS_PER_CLASS; index += 1) {
      await enrollStudent(tx, { classId: created.id, studentId: userIds.get(studentEmail(index))! });
    }
    classIds.set(spec.key, created.id);
  }
  return classIds;
}

async function createTimetable(tx: Tx, instituteId: string, userIds: Map<string, string>, classIds: Map<string, string>) {
  const [timetable] = await tx
    .insert(timetables)
    .values({
      institute_id: instituteId,
      name: "Whole school, 2025–26",
      type: "school",
      active: true,
      starts_on: "2025-09-01",
      ends_on: "2026-07-17",
      created_by: userIds.get(DEMO_MARKER_EMAIL)!,
    })
    .returning();
  const entries = Object.entries(week).flatMap(([day, line]) =>
    line.split("|").flatMap((cell, periodIndex) =>
      cell
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map((key) => {
          const spec = demoClasses.find((candidate) => candidate.key === key)!;
          return {
            timetable_id: timetable!.id,
            day: Number(day),
            period: periodIndex + 1,
            start_time: periods[periodIndex]!.start,
            end_time: periods[periodIndex]!.end,
            room: spec.room,
            class_id: classIds.get(key)!,
            teacher_id: userIds.get(spec.teacher)!,
          };
        }),
    ),
  );
  await tx.insert(timetableEntries).values(entries);
}

const sha256 = (bytes: Uint8Array) => crypto.createHash("sha256").update(bytes).digest("hex");

async function createPaperAndTemplate(tx: Tx, instituteId: string, ownerId: string, paper: GeneratedPaper) {
  // The catalogue file and paper may exist already (seeded into another database's storage folder).
  const [file] = await tx
    .insert(files)
    .values({
      institute_id: null,
      owner_id: null,
      bucket: DEMO_PAPER_BUCKET,
      storage_key: PAPER_KEY,
      content_type: "application/pdf",
      byte_size: paper.bytes.byteLength,
      sha256: sha256(paper.bytes),
      original_name: `${demoPaper.id}.pdf`,
      page_count: paper.pageCount,
    })
    .onConflictDoUpdate({
      target: [files.bucket, files.storage_key],
      set: { byte_size: paper.bytes.byteLength, sha256: sha256(paper.bytes), page_count: paper.pageCount },
    })
    .returning();
  await tx
    .insert(examPapers)
    .values({
      id: demoPaper.id,
      exam_code: demoPaper.examCode,
      title: demoPaper.title,
      subject: demoPaper.subject,
      board: demoPaper.board,
      specification: demoPaper.specification,
      source_file_id: file!.id,
      page_count: paper.pageCount,
    })
    .onConflictDoNothing();

  // The template as its owner would make it in the editor: created, then saved ready with its canvas,
  // through the same rules (the institute rule, validateCanvas) as the REST and tRPC routes.
  const template = await insertTemplate(
    tx,
    ownerId,
    createTemplateInput.parse({
      title: "Mathematics Paper 1 (Non-calculator), June 2026 mock",
      subject: demoPaper.subject,
      exam_id: demoPaper.id,
      exam_code: demoPaper.examCode,
      source_file_id: file!.id,
      page_count: paper.pageCount,
      institute_id: instituteId,
    }),
  );
  await replaceTemplate(tx, ownerId, saveTemplateInput.parse({ template_id: template.id, body: { status: "ready", ...demoPaperCanvas(paper), name_box: paper.nameBox } }));
}
