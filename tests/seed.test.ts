import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import crypto from "node:crypto";
import { count, eq, sql } from "drizzle-orm";
import { PDFArray, PDFDocument, PDFRawStream, decodePDFRawStream } from "pdf-lib";
import { beforeAll, expect, it } from "vitest";
import { verifyCredentials } from "../server/sign-in/credentials";
import { rowsOf } from "../server/db/client";
import { DEMO_INSTITUTE_NAME, DEMO_PASSWORD, demoLogins } from "../server/demo/school";
import { asService } from "../server/db/rls";
import * as schema from "../server/db/schema";
import { seedDemoSchool } from "../server/demo/seed";
import { demoPaper } from "../server/exam/demo-paper";
import { CURRICULUM_ROOT_KEY, demoSpecifications, departmentKey, timetableKey } from "../server/demo/graph";
import { createEmbeddedGraphStore } from "../server/graph/embedded";
import { localObjectPath } from "../server/storage/local";
import { describeOnEachDatabase } from "./support/database";

// The seed stores the paper's PDF under DATA_DIR/storage: keep it out of the work tree. (env() reads
// the variable lazily, on first use, which is after this line.)
process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-seed-test-"));

const countedTables = {
  institutes: schema.institutes,
  users: schema.users,
  memberships: schema.instituteMemberships,
  classes: schema.classes,
  enrollments: schema.enrollments,
  timetables: schema.timetables,
  timetableEntries: schema.timetableEntries,
  files: schema.files,
  papers: schema.examPapers,
  templates: schema.examTemplates,
  questions: schema.examQuestions,
  areas: schema.examResponseAreas,
  boundaries: schema.examQuestionBoundaries,
  graphNodes: schema.graphNodes,
  graphEdges: schema.graphEdges,
};

/** Rectangles drawn with the `re` operator on each page, page-relative with y from the top. */
async function drawnRectangles(bytes: Uint8Array) {
  const pdf = await PDFDocument.load(bytes);
  return pdf.getPages().map((page) => {
    const { width, height } = page.getSize();
    const contents = page.node.Contents();
    const streams = contents instanceof PDFArray ? contents.asArray().map((ref) => page.doc.context.lookup(ref)) : [contents];
    const text = streams
      .map((stream) => Buffer.from(stream instanceof PDFRawStream ? decodePDFRawStream(stream).decode() : []).toString("latin1"))
      .join("\n");
    return [...text.matchAll(/(-?[\d.]+) (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) re/g)].map((match) => {
      const [x, y, w, h] = match.slice(1).map(Number) as [number, number, number, number];
      return { x: x / width, y: (height - y - h) / height, width: w / width, height: h / height };
    });
  });
}

describeOnEachDatabase("demo school seed", (database) => {
  let instituteId: string;

  beforeAll(async () => {
    const result = await seedDemoSchool(database().db);
    expect(result.created).toBe(true);
    instituteId = result.instituteId;
  });

  const read = <T>(fn: Parameters<typeof asService<T>>[1]) => asService(database().db, fn);

  it("creates Northfield Academy with 4 staff, 60 students and three classes of 20", async () => {
    const institutes = await read((tx) => tx.select().from(schema.institutes));
    expect(institutes.map((row) => row.name)).toEqual([DEMO_INSTITUTE_NAME]);
    const roles = await read((tx) =>
      tx
        .select({ role: schema.instituteMemberships.role, people: count() })
        .from(schema.instituteMemberships)
        .where(eq(schema.instituteMemberships.institute_id, instituteId))
        .groupBy(schema.instituteMemberships.role),
    );
    expect(Object.fromEntries(roles.map((row) => [row.role, row.people]))).toEqual({
      school_admin: 1,
      department_head: 1,
      teacher: 3,
      student: 60,
    });
    const [users] = await read((tx) => tx.select({ people: count() }).from(schema.users));
    expect(users!.people).toBe(64);

    const classes = await read((tx) =>
      tx
        .select({ name: schema.classes.name, teacher: schema.users.email, active: sql<number>`count(*) filter (where ${schema.enrollments.active})`.mapWith(Number) })
        .from(schema.classes)
        .innerJoin(schema.users, eq(schema.users.id, schema.classes.teacher_id))
        .leftJoin(schema.enrollments, eq(schema.enrollments.class_id, schema.classes.id))
        .groupBy(schema.classes.name, schema.users.email)
        .orderBy(schema.classes.name),
    );
    expect(classes).toEqual([
      { name: "10A Mathematics", teacher: "teacher@northfield.example", active: 20 },
      { name: "10B Mathematics", teacher: "teacher2@northfield.example", active: 20 },
      { name: "11A Physics", teacher: "head@northfield.example", active: 20 },
    ]);
    // Every student is in exactly one class.
    const [enrolled] = await read((tx) =>
      tx.select({ students: sql<number>`count(distinct ${schema.enrollments.student_id})`.mapWith(Number) }).from(schema.enrollments),
    );
    expect(enrolled!.students).toBe(60);
  });

  it("lays out an active school timetable, Monday to Friday, with no teacher or room in two places", async () => {
    const [timetable] = await read((tx) => tx.select().from(schema.timetables));
    expect(timetable).toMatchObject({ institute_id: instituteId, type: "school", active: true });
    const entries = await read((tx) => tx.select().from(schema.timetableEntries));
    expect(new Set(entries.map((entry) => entry.day))).toEqual(new Set([1, 2, 3, 4, 5]));
    expect(entries.every((entry) => entry.room && entry.class_id && entry.teacher_id)).toBe(true);
    const clashes = (key: (entry: (typeof entries)[number]) => string) => {
      const seen = new Map<string, number>();
      for (const entry of entries) seen.set(key(entry), (seen.get(key(entry)) ?? 0) + 1);
      return [...seen.values()].filter((times) => times > 1).length;
    };
    expect(clashes((entry) => `${entry.day}/${entry.period}/${entry.teacher_id}`)).toBe(0);
    expect(clashes((entry) => `${entry.day}/${entry.period}/${entry.room}`)).toBe(0);
    expect(clashes((entry) => `${entry.day}/${entry.period}/${entry.class_id}`)).toBe(0);
  });

  it("creates a ready template over the catalogue paper, with containers, parts and areas on its pages", async () => {
    const [template] = await read((tx) => tx.select().from(schema.examTemplates));
    const [owner] = await read((tx) => tx.select().from(schema.users).where(eq(schema.users.id, template!.owner_id)));
    const [paper] = await read((tx) => tx.select().from(schema.examPapers));
    expect(owner!.email).toBe("teacher@northfield.example");
    expect(template).toMatchObject({
      institute_id: instituteId,
      status: "ready",
      exam_id: paper!.id,
      exam_code: paper!.exam_code,
      source_file_id: paper!.source_file_id,
      page_count: 4,
      subject: "Mathematics",
    });

    const questions = await read((tx) => tx.select().from(schema.examQuestions).orderBy(schema.examQuestions.order));
    const byId = new Map(questions.map((question) => [question.id, question]));
    const tree = questions.map((question) => `${question.parent_id ? `${byId.get(question.parent_id)!.label}>` : ""}${question.label}`);
    expect(tree).toEqual(["1", "1>1a", "1>1b", "2", "3", "3>3a", "3>3b", "3>3c", "4"]);
    const leaves = questions.filter((question) => !question.is_container);
    for (const leaf of leaves) {
      // Question 4 is multiple choice: its right box in its scheme, its boxes in its area.
      expect(leaf.mark_scheme?.type).toBe(leaf.label === "4" ? "multiple_choice" : "points");
      expect(leaf.spec_ref).toBeTruthy();
    }
    expect(leaves.find((leaf) => leaf.label === "4")).toMatchObject({ answer_type: "multiple_choice", mark_scheme: { type: "multiple_choice", correct: ["C"], allow_multiple: false } });
    const total = leaves.reduce((sum, leaf) => sum + Number(leaf.max_marks), 0);
    expect(total).toBe(16);
    for (const container of questions.filter((question) => question.is_container)) {
      const parts = questions.filter((question) => question.parent_id === container.id);
      expect(Number(container.max_marks)).toBe(parts.reduce((sum, part) => sum + Number(part.max_marks), 0));
    }

    const areas = await read((tx) => tx.select().from(schema.examResponseAreas));
    for (const leaf of leaves) {
      expect(areas.filter((area) => area.question_id === leaf.id && area.kind === "response")).toHaveLength(1);
    }
    const tickAreas = areas.filter((area) => area.tick_boxes !== null);
    expect(tickAreas.map((area) => area.tick_boxes!.map((box) => box.label))).toEqual([["A", "B", "C", "D"]]);
    expect(tickAreas[0]!.question_id).toBe(leaves.find((leaf) => leaf.label === "4")!.id);
    for (const area of areas) {
      expect(area.page).toBeGreaterThanOrEqual(2);
      expect(area.page).toBeLessThanOrEqual(4);
      expect(area.x + area.width).toBeLessThanOrEqual(1);
      expect(area.y + area.height).toBeLessThanOrEqual(1);
    }
    const boundaries = await read((tx) => tx.select().from(schema.examQuestionBoundaries));
    const pagesOfQuestion3 = boundaries.filter((boundary) => boundary.question_id === questions[4]!.id).map((b) => b.page);
    expect(pagesOfQuestion3.sort()).toEqual([3, 4]);
  });

  it("stores the paper as a real 4-page PDF, with the answer boxes exactly where the areas are", async () => {
    const [file] = await read((tx) => tx.select().from(schema.files));
    expect(file).toMatchObject({ institute_id: null, content_type: "application/pdf", page_count: 4 });
    const bytes = fs.readFileSync(localObjectPath(file!.bucket, file!.storage_key));
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(bytes.byteLength).toBe(file!.byte_size);
    expect(crypto.createHash("sha256").update(bytes).digest("hex")).toBe(file!.sha256);
    expect((await PDFDocument.load(bytes)).getPageCount()).toBe(4);

    const rectangles = await drawnRectangles(bytes);
    const areas = await read((tx) => tx.select().from(schema.examResponseAreas).where(eq(schema.examResponseAreas.kind, "response")));
    expect(areas.length).toBeGreaterThan(0);
    for (const area of areas) {
      const drawn = rectangles[area.page - 1]!.find(
        (rectangle) =>
          Math.abs(rectangle.x - area.x) < 1e-4 &&
          Math.abs(rectangle.y - area.y) < 1e-4 &&
          Math.abs(rectangle.width - area.width) < 1e-4 &&
          Math.abs(rectangle.height - area.height) < 1e-4,
      );
      expect(drawn, `a box drawn on page ${area.page} at the area ${JSON.stringify(area)}`).toBeDefined();
    }
  });

  it("lets every demo login sign in with the published password", async () => {
    for (const login of demoLogins) {
      const user = await verifyCredentials(database().db, { email: login.email, password: DEMO_PASSWORD });
      expect(user, login.email).toMatchObject({ email: login.email });
    }
    const [student] = await read((tx) => tx.select().from(schema.users).where(eq(schema.users.email, "student01@northfield.example")));
    expect(student!.full_name).toBe(demoLogins.at(-1)!.fullName);
    expect(await verifyCredentials(database().db, { email: "teacher@northfield.example", password: "wrong-password" })).toBeNull();
  });

  it("gives every graph database meaningful nodes: people, school, curriculum, the projected template, a calendar", async () => {
    const store = createEmbeddedGraphStore(database().db);
    const names = (children: { properties: Record<string, unknown> }[] | null) => children?.map((child) => child.properties.name);
    const [institute] = await read((tx) => tx.select().from(schema.institutes));

    // Each user's own node in their personal database; a teacher's classes and timetable hang off it.
    const people = await read((tx) => tx.select().from(schema.users));
    for (const person of people) {
      expect((await store.getNode(person.user_db_name, person.id))?.node_type, person.email).toBe("User");
    }
    const teacher = people.find((person) => person.email === "teacher@northfield.example")!;
    const teacherChildren = await store.listChildren(teacher.user_db_name, teacher.id);
    expect(teacherChildren?.map((child) => `${child.relationship} ${String(child.properties.name)}`).sort()).toEqual([
      "HAS_TIMETABLE Sarah Mitchell's timetable",
      "TEACHES 10A Mathematics",
    ]);
    const lessons = await store.listChildren(teacher.user_db_name, timetableKey(teacher.id));
    expect(lessons!.length).toBeGreaterThan(5);
    expect(lessons!.every((lesson) => lesson.node_type === "TimetableLesson")).toBe(true);

    // The school: departments, their classes, each class's teacher and 20 students.
    const departments = await store.listChildren(institute!.graph_db_name, institute!.id, { nodeType: "Department" });
    expect(names(departments)).toEqual(["Mathematics", "Science"]);
    const mathsClasses = await store.listChildren(institute!.graph_db_name, departmentKey("Mathematics"));
    expect(names(mathsClasses)).toEqual(["10A Mathematics", "10B Mathematics"]);
    const classChildren = await store.listChildren(institute!.graph_db_name, mathsClasses![0]!.id);
    expect(classChildren!.filter((child) => child.node_type === "Student")).toHaveLength(20);
    expect(classChildren!.filter((child) => child.node_type === "Teacher").map((child) => child.id)).toEqual([teacher.id]);

    // The curriculum has a named point for every spec_ref of the demo template, which the projection links.
    const curriculum = institute!.curriculum_db_name;
    expect(names(await store.listChildren(curriculum, CURRICULUM_ROOT_KEY))).toEqual(["Mathematics", "Physics"]);
    const questions = await read((tx) => tx.select().from(schema.examQuestions));
    for (const question of questions) {
      const point = await store.getNode(curriculum, question.spec_ref!);
      expect(point?.node_type, question.spec_ref!).toBe("SpecificationPoint");
      expect(point?.properties.name, question.spec_ref!).toEqual(expect.any(String));
      const assessed = await store.listChildren(curriculum, question.id, { nodeType: "SpecificationPoint" });
      expect(assessed?.map((child) => child.id)).toEqual([question.spec_ref]);
    }
    const paper = await store.listChildren(curriculum, demoPaper.examCode);
    expect(paper?.map((child) => `${child.relationship} ${String(child.properties.name)}`)).toEqual([
      "HAS_QUESTION 1",
      "HAS_QUESTION 2",
      "HAS_QUESTION 3",
      "HAS_QUESTION 4",
      `HAS_SPECIFICATION ${demoSpecifications[0]!.name}`,
    ]);

    // The global calendar: year → 12 months → weeks → 7 days, every day of the year exactly once.
    const global = "global";
    expect(names(await store.listChildren(global, "calendar"))).toEqual(["2025", "2026"]);
    const months = await store.listChildren(global, "calendar-2026");
    expect(names(months)).toEqual([
      "January 2026", "February 2026", "March 2026", "April 2026", "May 2026", "June 2026",
      "July 2026", "August 2026", "September 2026", "October 2026", "November 2026", "December 2026",
    ]);
    const days: string[] = [];
    for (const month of months!) {
      for (const week of (await store.listChildren(global, month.id))!) {
        const weekDays = (await store.listChildren(global, week.id))!;
        expect(weekDays.map((day) => day.properties.weekday)).toEqual([1, 2, 3, 4, 5, 6, 7]);
        days.push(...weekDays.map((day) => String(day.properties.date)));
      }
    }
    const daysOf2026 = days.filter((day) => day.startsWith("2026-"));
    expect(new Set(daysOf2026).size).toBe(365);
    expect(daysOf2026).toHaveLength(365);
    expect(days[0]).toBe("2025-12-29"); // ISO week 1 of 2026 starts on the Monday before 1 January
  });

  it("changes nothing when it runs again", async () => {
    const snapshot = async () =>
      Object.fromEntries(
        await Promise.all(
          Object.entries(countedTables).map(async ([name, table]) => {
            const result = await database().db.execute(sql`select count(*)::int as rows from ${table}`);
            return [name, rowsOf<{ rows: number }>(result)[0]!.rows] as const;
          }),
        ),
      );
    const before = await snapshot();
    const again = await seedDemoSchool(database().db);
    expect(again).toEqual({ instituteId, created: false });
    expect(await snapshot()).toEqual(before);
  });
});
