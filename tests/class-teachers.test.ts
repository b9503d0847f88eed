import crypto from "node:crypto";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as listSchoolClassesRoute } from "../app/database/timetable/classes/route";
import { PUT as setTeachersRoute } from "../app/database/timetable/classes/[class_id]/teachers/route";
import { createClass } from "../server/classroom/classes";
import { classTeachers } from "../server/db/schema";
import { asService, asUser } from "../server/db/rls";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

/**
 * A class's teachers (issue 33, item 4): its main teacher and its other teachers, set by the school's
 * admins on the class page (tRPC) or over REST; every teacher of a class finds it among the classes they
 * teach and can start its batches.
 */

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const putTeachers = (classId: string, token: string, body: unknown) =>
  setTeachersRoute(
    new Request(`http://localhost/database/timetable/classes/${classId}/teachers`, {
      method: "PUT",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
    { params: Promise.resolve({ class_id: classId }) },
  );
const listClasses = (token: string, headers: Record<string, string> = {}) =>
  listSchoolClassesRoute(new Request("http://localhost/database/timetable/classes", { headers: { ...bearer(token), ...headers } }));

describeOnEachDatabase("a class's teachers", (database) => {
  let school: School;
  let elsewhere: School;
  let classId: string;
  let templateId: string;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const teachersOf = async (id: string) => {
    const found = (await as(school.admin).classes.list()).classes.find((row) => row.id === id)!;
    return { main: found.teacher_id, others: found.other_teachers.map((teacher) => teacher.id).sort() };
  };

  beforeAll(async () => {
    school = await createSchool(database().db, "Taught");
    elsewhere = await createSchool(database().db, "Elsewhere");
    classId = (await as(school.admin).classes.create({ name: "10X/Ma" })).id;
    const template = await as(school.otherTeacher).exam.templates.create({ title: "Mock", page_count: 3 });
    await as(school.otherTeacher).exam.templates.save({ template_id: template.id, body: { ...sampleCanvas(), status: "ready" } });
    templateId = template.id;
  });

  it("an imported class without a teacher is in nobody's New batch list until an admin sets its teachers", async () => {
    expect((await as(school.otherTeacher).classes.teaching()).classes.map((row) => row.id)).not.toContain(classId);
    const set = await as(school.admin).classes.setTeachers({ classId, teacherId: school.teacher.id, otherTeacherIds: [school.otherTeacher.id, school.head.id] });
    expect(set).toMatchObject({ id: classId, teacher_id: school.teacher.id, teacher_name: school.teacher.full_name });
    expect(set.other_teachers.map((teacher) => teacher.full_name).sort()).toEqual([school.otherTeacher.full_name, school.head.full_name].sort());
    for (const teacher of [school.teacher, school.otherTeacher, school.head]) {
      expect((await as(teacher).classes.teaching()).classes.map((row) => row.id), teacher.full_name).toContain(classId);
    }
    // An other teacher starts a batch of the class: every active student of it gets a submission.
    await as(school.admin).classes.addStudent({ classId, studentId: school.student.id });
    const batch = await as(school.otherTeacher).exam.batches.create({ template_id: templateId, class_id: classId });
    expect(batch).toMatchObject({ class_id: classId, teacher_id: school.otherTeacher.id, submission_count: 1 });
  });

  it("changes the main teacher and removes other teachers; the main teacher is never also an other teacher", async () => {
    await as(school.admin).classes.setTeachers({ classId, teacherId: school.teacher.id, otherTeacherIds: [school.otherTeacher.id] });
    // The other teacher becomes the main teacher: listed once, as main.
    const changed = await as(school.admin).classes.setTeachers({ classId, teacherId: school.otherTeacher.id, otherTeacherIds: [school.otherTeacher.id, school.teacher.id] });
    expect(changed.teacher_id).toBe(school.otherTeacher.id);
    expect(changed.other_teachers.map((teacher) => teacher.id)).toEqual([school.teacher.id]);
    await as(school.admin).classes.setTeachers({ classId, teacherId: null, otherTeacherIds: [] });
    expect(await teachersOf(classId)).toEqual({ main: null, others: [] });
    expect((await as(school.head).classes.teaching()).classes.map((row) => row.id)).not.toContain(classId);
  });

  it("over REST: 200 with the class; the cached class list changes at once (its ETag no longer matches)", async () => {
    const before = await listClasses(school.admin.token);
    const etag = before.headers.get("etag")!;
    const reply = await putTeachers(classId, school.admin.token, { teacher_id: school.head.id, other_teacher_ids: [school.teacher.id] });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toMatchObject({ id: classId, teacher_id: school.head.id, other_teachers: [{ id: school.teacher.id, full_name: school.teacher.full_name }] });
    const after = await listClasses(school.admin.token, { "if-none-match": etag });
    expect(after.status).toBe(200);
    const listed = (await after.json()) as { classes: { id: string; other_teachers: { id: string }[] }[] };
    expect(listed.classes.find((row) => row.id === classId)!.other_teachers.map((teacher) => teacher.id)).toEqual([school.teacher.id]);
  });

  describe("refusals", () => {
    it("a teacher, a head or a student of the school: 403; nothing changes", async () => {
      const before = await teachersOf(classId);
      for (const person of [school.teacher, school.head, school.student]) {
        const reply = await putTeachers(classId, person.token, { teacher_id: person.id });
        expect(reply.status, person.full_name).toBe(403);
        expect(await reply.json()).toEqual({ detail: "Only a school admin of the class's school can change its classes" });
      }
      expect(await teachersOf(classId)).toEqual(before);
    });

    it("a student, or another school's teacher, as a teacher: 400 with one sentence whoever they are", async () => {
      const before = await teachersOf(classId);
      const sentence = { detail: "Only staff of the class's school can teach it: choose teachers from the school's staff" };
      for (const body of [
        { teacher_id: school.student.id },
        { teacher_id: elsewhere.teacher.id },
        { teacher_id: school.teacher.id, other_teacher_ids: [school.student.id] },
        { teacher_id: null, other_teacher_ids: [elsewhere.admin.id] },
        { teacher_id: null, other_teacher_ids: [crypto.randomUUID()] },
      ]) {
        const reply = await putTeachers(classId, school.admin.token, body);
        expect(reply.status, JSON.stringify(body)).toBe(400);
        expect(await reply.json()).toEqual(sentence);
      }
      expect(await teachersOf(classId)).toEqual(before);
    });

    it("another school's class: 404, as for a class that does not exist", async () => {
      const theirs = (await asService(database().db, (tx) => createClass(tx, { instituteId: elsewhere.institute.id, name: "Theirs" }))).id;
      for (const id of [theirs, crypto.randomUUID()]) {
        const reply = await putTeachers(id, school.admin.token, { teacher_id: school.teacher.id });
        expect(reply.status).toBe(404);
        expect(await reply.json()).toEqual({ detail: "Class not found" });
      }
      await expect(as(school.admin).classes.setTeachers({ classId: theirs, teacherId: null })).rejects.toMatchObject({ code: "NOT_FOUND" });
    });

    it("the database refuses a student as a class's teacher even when a domain function forgets to check", async () => {
      await expect(
        asUser(database().db, school.admin.id, (tx) => tx.insert(classTeachers).values({ class_id: classId, teacher_id: school.student.id })),
      ).rejects.toThrow();
      await expect(
        asUser(database().db, school.teacher.id, (tx) => tx.insert(classTeachers).values({ class_id: classId, teacher_id: school.teacher.id })),
      ).rejects.toThrow();
    });
  });

  it("generated choices of people: set exactly when all are staff of the school, else 400 and unchanged", async () => {
    const people = [school.admin, school.head, school.teacher, school.otherTeacher, school.student, school.otherStudent, elsewhere.teacher, elsewhere.admin];
    const staff = new Set([school.admin, school.head, school.teacher, school.otherTeacher].map((person) => person.id));
    const someone = fc.oneof(
      fc.constantFrom(...people.map((person) => person.id)),
      fc.uuid(),
    );
    await fc.assert(
      fc.asyncProperty(fc.option(someone, { nil: null }), fc.array(someone, { maxLength: 6 }), async (main, others) => {
        const before = await teachersOf(classId);
        const reply = await putTeachers(classId, school.admin.token, { teacher_id: main, other_teacher_ids: others });
        const allStaff = [...(main ? [main] : []), ...others].every((id) => staff.has(id));
        if (allStaff) {
          expect(reply.status).toBe(200);
          expect(await teachersOf(classId)).toEqual({ main, others: [...new Set(others)].filter((id) => id !== main).sort() });
        } else {
          expect(reply.status).toBe(400);
          expect(await teachersOf(classId)).toEqual(before);
        }
      }),
      { seed: 20261205, numRuns: database().kind === "pglite" ? 30 : 15 },
    );
  });
});
