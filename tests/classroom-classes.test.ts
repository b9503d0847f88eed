import { beforeAll, describe, expect, it } from "vitest";
import { GET as listEnrolledRoute } from "../app/database/timetable/classes/enrolled/route";
import { GET as listSchoolClassesRoute } from "../app/database/timetable/classes/route";
import { GET as listSchoolStudentsRoute } from "../app/database/timetable/classes/school/students/route";
import { GET as listTeachingRoute } from "../app/database/timetable/classes/teaching/route";
import { GET as listClassStudentsRoute, POST as addStudentRoute } from "../app/database/timetable/classes/[class_id]/students/route";
import { signUserToken } from "../server/auth/tokens";
import { createClass } from "../server/classroom/classes";
import { asService } from "../server/db/rls";
import { createUser } from "../server/identity/users";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const get = (route: (request: Request) => Promise<Response>, path: string, token: string) =>
  route(new Request(`http://localhost${path}`, { headers: bearer(token) }));
const addStudent = (classId: string, token: string, body: unknown) =>
  addStudentRoute(
    new Request(`http://localhost/database/timetable/classes/${classId}/students`, {
      method: "POST",
      headers: { ...bearer(token), "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
    { params: Promise.resolve({ class_id: classId }) },
  );

describeOnEachDatabase("classes and students", (database) => {
  let school: School;
  let otherSchool: School;
  let lonerToken: string;
  let mathsId: string;
  let artId: string;
  let otherClassId: string;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  beforeAll(async () => {
    const { db } = database();
    school = await createSchool(db, "Classy");
    otherSchool = await createSchool(db, "Elsewhere");
    mathsId = (await as(school.admin).classes.create({ name: "Maths 10", subject: "Maths", teacherId: school.teacher.id })).id;
    artId = (await as(school.admin).classes.create({ name: "Art 10" })).id;
    otherClassId = (await asService(db, (tx) => createClass(tx, { instituteId: otherSchool.institute.id, name: "Their class" }))).id;
    const loner = await asService(db, (tx) => createUser(tx, { email: `loner.${crypto.randomUUID()}@example.org`, fullName: "Lone Ranger" }));
    lonerToken = await signUserToken({ userId: loner.id, ttlSeconds: 600 });
  });

  describe("the three class lists", () => {
    it("lists every class of the caller's school with total, for staff and students alike", async () => {
      for (const person of [school.admin, school.teacher, school.student]) {
        const response = await get(listSchoolClassesRoute, "/database/timetable/classes", person.token);
        expect(response.status).toBe(200);
        const body = await response.json();
        expect(body.total).toBe(2);
        expect(body.classes.map((row: { name: string }) => row.name)).toEqual(["Art 10", "Maths 10"]);
        expect(body.classes[1]).toMatchObject({ id: mathsId, subject: "Maths", teacher_id: school.teacher.id, teacher_name: school.teacher.full_name });
      }
      const theirs = await (await get(listSchoolClassesRoute, "/database/timetable/classes", otherSchool.admin.token)).json();
      expect(theirs).toMatchObject({ total: 1, classes: [{ id: otherClassId }] });
    });

    it("lists the classes the caller teaches: as main teacher or in an active timetable", async () => {
      const teaching = await (await get(listTeachingRoute, "/database/timetable/classes/teaching", school.teacher.token)).json();
      expect(teaching.classes.map((row: { id: string }) => row.id)).toEqual([mathsId]);
      expect(await (await get(listTeachingRoute, "/database/timetable/classes/teaching", school.otherTeacher.token)).json()).toEqual({ classes: [] });

      const timetable = await as(school.admin).timetables.create({ name: "Current" });
      await as(school.admin).timetables.createEntry({
        timetable_id: timetable.id, day: 1, period: 1, start_time: "09:00", end_time: "10:00", class_id: artId, teacher_id: school.otherTeacher.id,
      });
      // An inactive timetable does not count yet.
      expect((await as(school.otherTeacher).classes.teaching()).classes).toEqual([]);
      await as(school.admin).timetables.activate({ id: timetable.id });
      expect((await as(school.otherTeacher).classes.teaching()).classes.map((row) => row.id)).toEqual([artId]);
    });

    it("lists the classes the caller is actively enrolled in", async () => {
      await as(school.admin).classes.addStudent({ classId: mathsId, studentId: school.student.id });
      const enrolled = await (await get(listEnrolledRoute, "/database/timetable/classes/enrolled", school.student.token)).json();
      expect(enrolled.classes.map((row: { id: string }) => row.id)).toEqual([mathsId]);
      await as(school.admin).classes.removeStudent({ classId: mathsId, studentId: school.student.id });
      expect((await as(school.student).classes.enrolled()).classes).toEqual([]);
      await as(school.admin).classes.addStudent({ classId: mathsId, studentId: school.student.id });
    });

    it("answers empty lists (total 0) to a caller without a school", async () => {
      expect(await (await get(listSchoolClassesRoute, "/database/timetable/classes", lonerToken)).json()).toEqual({ classes: [], total: 0 });
      expect(await (await get(listTeachingRoute, "/database/timetable/classes/teaching", lonerToken)).json()).toEqual({ classes: [] });
      expect(await (await get(listEnrolledRoute, "/database/timetable/classes/enrolled", lonerToken)).json()).toEqual({ classes: [] });
      expect(await (await get(listSchoolStudentsRoute, "/database/timetable/classes/school/students", lonerToken)).json()).toEqual({ students: [] });
    });

    it("refuses a missing token with 401 {detail}", async () => {
      const response = await listSchoolClassesRoute(new Request("http://localhost/database/timetable/classes"));
      expect(response.status).toBe(401);
      expect(await response.json()).toHaveProperty("detail");
    });
  });

  describe("GET /database/timetable/classes/school/students", () => {
    it("lists the school's students ordered by full_name with the contract's fields", async () => {
      const { db } = database();
      await asService(db, (tx) =>
        createUser(tx, { email: `aaron.${crypto.randomUUID()}@example.org`, fullName: "Aaron First", instituteId: school.institute.id, role: "student" }),
      );
      const response = await get(listSchoolStudentsRoute, "/database/timetable/classes/school/students", school.teacher.token);
      expect(response.status).toBe(200);
      const { students } = await response.json();
      const names = students.map((student: { full_name: string }) => student.full_name);
      expect(names).toEqual([...names].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(names[0]).toBe("Aaron First");
      expect(names).toHaveLength(3);
      expect(Object.keys(students[0]).sort()).toEqual(["display_name", "email", "full_name", "id", "user_type"]);
      expect(students.map((student: { id: string }) => student.id)).not.toContain(school.teacher.id);
      expect(students.map((student: { id: string }) => student.id)).not.toContain(otherSchool.student.id);
    });
  });

  describe("POST /database/timetable/classes/{class_id}/students", () => {
    it("lets a school admin add a student of the school; adding twice is idempotent", async () => {
      const first = await addStudent(artId, school.admin.token, { student_id: school.otherStudent.id });
      expect(first.status).toBe(200);
      expect(await first.json()).toMatchObject({ class_id: artId, student_id: school.otherStudent.id, active: true });
      const again = await addStudent(artId, school.admin.token, { student_id: school.otherStudent.id });
      expect(again.status).toBe(200);
      const { students } = await as(school.teacher).classes.students({ classId: artId });
      expect(students.filter((student) => student.id === school.otherStudent.id)).toHaveLength(1);
    });

    it("stays idempotent when the same student is added concurrently", async () => {
      const newcomer = await asService(database().db, (tx) =>
        createUser(tx, { email: `new.${crypto.randomUUID()}@example.org`, fullName: "New Comer", instituteId: school.institute.id, role: "student" }),
      );
      const responses = await Promise.all(Array.from({ length: 4 }, () => addStudent(mathsId, school.admin.token, { student_id: newcomer.id })));
      expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
      const { students } = await as(school.admin).classes.students({ classId: mathsId, includeInactive: true });
      expect(students.filter((student) => student.id === newcomer.id)).toEqual([expect.objectContaining({ active: true })]);
    });

    it("re-activates an inactive enrollment", async () => {
      await as(school.admin).classes.removeStudent({ classId: artId, studentId: school.otherStudent.id });
      const removed = await as(school.admin).classes.students({ classId: artId, includeInactive: true });
      expect(removed.students.find((student) => student.id === school.otherStudent.id)?.active).toBe(false);
      expect((await as(school.admin).classes.students({ classId: artId })).students.map((student) => student.id)).not.toContain(school.otherStudent.id);
      const response = await addStudent(artId, school.admin.token, { student_id: school.otherStudent.id });
      expect(await response.json()).toMatchObject({ active: true });
      const listed = await (
        await listClassStudentsRoute(new Request(`http://localhost/database/timetable/classes/${artId}/students`, { headers: bearer(school.teacher.token) }), {
          params: Promise.resolve({ class_id: artId }),
        })
      ).json();
      expect(listed.students.map((student: { id: string }) => student.id)).toContain(school.otherStudent.id);
    });

    it("answers 403 to anyone but a school admin, 404 for another school's class", async () => {
      for (const person of [school.head, school.teacher, school.student]) {
        const response = await addStudent(artId, person.token, { student_id: school.student.id });
        expect(response.status).toBe(403);
        expect((await response.json()).detail).toMatch(/school admin/);
      }
      const foreign = await addStudent(otherClassId, school.admin.token, { student_id: school.student.id });
      expect(foreign.status).toBe(404);
      const foreignList = await listClassStudentsRoute(
        new Request(`http://localhost/database/timetable/classes/${otherClassId}/students`, { headers: bearer(school.admin.token) }),
        { params: Promise.resolve({ class_id: otherClassId }) },
      );
      expect(foreignList.status).toBe(404);
    });

    it("refuses a student of another school, a teacher, and a bad body with 400", async () => {
      for (const studentId of [otherSchool.student.id, school.teacher.id, crypto.randomUUID()]) {
        const response = await addStudent(artId, school.admin.token, { student_id: studentId });
        expect(response.status).toBe(400);
        expect((await response.json()).detail).toMatch(/student/);
      }
      expect((await addStudent(artId, school.admin.token, {})).status).toBe(400);
      expect((await addStudent(artId, school.admin.token, "not json")).status).toBe(400);
      // A malformed class id names no class: 404, as on every path (docs/decisions.md "Same mistake, same answer on REST and tRPC", issue 15).
      expect((await addStudent("not-a-class", school.admin.token, { student_id: school.student.id })).status).toBe(404);
      const { students } = await as(school.admin).classes.students({ classId: artId, includeInactive: true });
      expect(students.map((student) => student.id)).not.toContain(otherSchool.student.id);
    });
  });

  describe("class administration (tRPC)", () => {
    it("creates and renames classes; a duplicate name is 409", async () => {
      const created = await as(school.admin).classes.create({ name: "History 11" });
      expect(created).toMatchObject({ name: "History 11", institute_id: school.institute.id });
      expect(await as(school.admin).classes.rename({ classId: created.id, name: "History 11B" })).toMatchObject({ name: "History 11B" });
      await expect(as(school.admin).classes.rename({ classId: created.id, name: "Maths 10" })).rejects.toMatchObject({ code: "CONFLICT" });
      await expect(as(school.admin).classes.create({ name: "Maths 10" })).rejects.toMatchObject({ code: "CONFLICT" });
      await expect(as(school.admin).classes.rename({ classId: created.id, name: " " })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    });

    it("lets only school admins create, rename and remove; another school's class is 404", async () => {
      for (const person of [school.head, school.teacher, school.student]) {
        await expect(as(person).classes.create({ name: `By ${person.id}` })).rejects.toMatchObject({ code: "FORBIDDEN" });
        await expect(as(person).classes.rename({ classId: mathsId, name: "Mine" })).rejects.toMatchObject({ code: "FORBIDDEN" });
        await expect(as(person).classes.removeStudent({ classId: mathsId, studentId: school.student.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
      }
      await expect(as(school.admin).classes.rename({ classId: otherClassId, name: "Taken" })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(as(school.admin).classes.create({ name: "Elsewhere", instituteId: otherSchool.institute.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(as(school.admin).classes.students({ classId: otherClassId })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(as({ id: JSON.parse(atob(lonerToken.split(".")[1]!)).sub }).classes.create({ name: "Nowhere" })).rejects.toMatchObject({ code: "FORBIDDEN" });
    });

    it("removes an enrollment softly, and 404 when there is none", async () => {
      const removed = await as(school.admin).classes.removeStudent({ classId: mathsId, studentId: school.student.id });
      expect(removed).toMatchObject({ class_id: mathsId, student_id: school.student.id, active: false });
      await expect(as(school.admin).classes.removeStudent({ classId: mathsId, studentId: school.otherStudent.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    });
  });
});
