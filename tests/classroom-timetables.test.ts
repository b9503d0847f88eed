import { beforeAll, describe, expect, it } from "vitest";
import { GET as listTimetablesRoute } from "../app/database/timetable/timetables/route";
import { signUserToken } from "../server/auth/tokens";
import { createClass } from "../server/classroom/classes";
import { asService } from "../server/db/rls";
import { eq } from "drizzle-orm";
import { classTeachers, enrollments, timetableEntries, timetables } from "../server/db/schema";
import { createUser } from "../server/identity/users";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";

describeOnEachDatabase("timetables", (database) => {
  let school: School;
  let otherSchool: School;
  let classId: string;
  let otherClassId: string;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const list = (token: string, query = "") =>
    listTimetablesRoute(
      new Request(`http://localhost/database/timetable/timetables${query}`, { headers: { authorization: `Bearer ${token}` } }),
    );

  beforeAll(async () => {
    const { db } = database();
    school = await createSchool(db, "Timetabled");
    otherSchool = await createSchool(db, "Elsewhere");
    classId = (await asService(db, (tx) => createClass(tx, { instituteId: school.institute.id, name: "10A" }))).id;
    otherClassId = (await asService(db, (tx) => createClass(tx, { instituteId: otherSchool.institute.id, name: "10A" }))).id;
  });

  describe("GET /database/timetable/timetables", () => {
    let schoolWide: string;
    let forClass: string;
    let otherSchoolsTimetable: string;

    beforeAll(async () => {
      schoolWide = (await as(school.admin).timetables.create({ name: "Autumn term" })).id;
      forClass = (await as(school.head).timetables.create({ name: "10A exams", type: "class", class_id: classId })).id;
      await as(school.admin).timetables.activate({ id: forClass });
      otherSchoolsTimetable = (await as(otherSchool.admin).timetables.create({ name: "Their term" })).id;
    });

    it("lists the caller's school's timetables newest first for a school admin and a department head", async () => {
      for (const manager of [school.admin, school.head]) {
        const response = await list(manager.token);
        expect(response.status).toBe(200);
        const { timetables } = await response.json();
        const ids = timetables.map((timetable: { id: string }) => timetable.id);
        expect(ids.indexOf(forClass)).toBeLessThan(ids.indexOf(schoolWide));
        expect(ids).toContain(schoolWide);
        expect(ids).not.toContain(otherSchoolsTimetable);
        const createdAt = timetables.map((timetable: { created_at: string }) => Date.parse(timetable.created_at));
        expect([...createdAt].sort((a, b) => b - a)).toEqual(createdAt);
        expect(timetables.find((timetable: { id: string }) => timetable.id === forClass)).toMatchObject({
          name: "10A exams",
          type: "class",
          class_id: classId,
          active: true,
          institute_id: school.institute.id,
        });
      }
    });

    it("filters by class_id, type and active", async () => {
      const byClass = await (await list(school.admin.token, `?class_id=${classId}`)).json();
      expect(byClass.timetables.map((timetable: { id: string }) => timetable.id)).toEqual([forClass]);
      const byType = await (await list(school.admin.token, "?type=school")).json();
      expect(byType.timetables.map((timetable: { id: string }) => timetable.id)).toContain(schoolWide);
      expect(byType.timetables.map((timetable: { id: string }) => timetable.id)).not.toContain(forClass);
      const active = await (await list(school.admin.token, "?active=true")).json();
      expect(active.timetables.map((timetable: { id: string }) => timetable.id)).toEqual([forClass]);
      const inactive = await (await list(school.admin.token, "?active=false")).json();
      expect(inactive.timetables.map((timetable: { id: string }) => timetable.id)).toContain(schoolWide);
      expect(inactive.timetables.map((timetable: { id: string }) => timetable.id)).not.toContain(forClass);
    });

    it("answers an empty list to teachers and students of the school", async () => {
      for (const person of [school.teacher, school.student]) {
        const response = await list(person.token);
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ timetables: [] });
      }
    });

    it("answers an empty list to a caller without a school", async () => {
      const loner = await asService(database().db, (tx) =>
        createUser(tx, { email: `loner.${crypto.randomUUID()}@example.org`, fullName: "Lone Ranger" }),
      );
      const response = await list(await signUserToken({ userId: loner.id, ttlSeconds: 600 }));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ timetables: [] });
    });

    it("gives the same answers through tRPC, and refuses a caller who is not signed in", async () => {
      expect((await as(school.teacher).timetables.list({})).timetables).toEqual([]);
      expect((await as(school.admin).timetables.list({ class_id: classId })).timetables.map((timetable) => timetable.id)).toEqual([forClass]);
      const anonymous = createCaller({ db: database().db, user: null });
      await expect(anonymous.timetables.list({})).rejects.toMatchObject({ code: "UNAUTHORIZED" });
      await expect(anonymous.timetables.create({ name: "x" })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
      await expect(anonymous.classes.list()).rejects.toMatchObject({ code: "UNAUTHORIZED" });
    });

    it("refuses bad filters with 400 {detail}, and a missing token with 401", async () => {
      for (const query of ["?class_id=not-a-uuid", "?type=weekly", "?active=maybe"]) {
        const response = await list(school.admin.token, query);
        expect(response.status).toBe(400);
        expect((await response.json()).detail).toMatch(/^(Class|Type|Active): /);
      }
      const anonymous = await listTimetablesRoute(new Request("http://localhost/database/timetable/timetables"));
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toHaveProperty("detail");
    });
  });

  describe("timetable administration", () => {
    it("lets managers create, edit, activate, deactivate and delete timetables", async () => {
      const created = await as(school.admin).timetables.create({ name: "Spring", starts_on: "2027-01-04", ends_on: "2027-03-31" });
      expect(created).toMatchObject({ name: "Spring", type: "school", active: false, created_by: school.admin.id });
      const edited = await as(school.head).timetables.update({ id: created.id, name: "Spring term" });
      expect(edited).toMatchObject({ name: "Spring term", starts_on: "2027-01-04" });
      expect((await as(school.admin).timetables.activate({ id: created.id })).active).toBe(true);
      expect((await as(school.admin).timetables.deactivate({ id: created.id })).active).toBe(false);
      await as(school.admin).timetables.delete({ id: created.id });
      await expect(as(school.admin).timetables.get({ id: created.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    });

    it("keeps one active timetable per school, type and class", async () => {
      const first = await as(school.admin).timetables.create({ name: "Week A", type: "teacher" });
      const second = await as(school.admin).timetables.create({ name: "Week B", type: "teacher" });
      await as(school.admin).timetables.activate({ id: first.id });
      await as(school.admin).timetables.activate({ id: second.id });
      const { timetables } = await as(school.admin).timetables.list({ type: "teacher", active: true });
      expect(timetables.map((timetable) => timetable.id)).toEqual([second.id]);
    });

    it("leaves exactly one active timetable after concurrent activations", async () => {
      const candidates = await Promise.all(
        ["E1", "E2", "E3", "E4"].map((name) => as(school.admin).timetables.create({ name, type: "exam" })),
      );
      const attempts = await Promise.allSettled(candidates.map(({ id }) => as(school.head).timetables.activate({ id })));
      expect(attempts.every((attempt) => attempt.status === "fulfilled")).toBe(true);
      const { timetables } = await as(school.admin).timetables.list({ type: "exam", active: true });
      expect(timetables).toHaveLength(1);
      expect(candidates.map(({ id }) => id)).toContain(timetables[0]!.id);
    });

    it("refuses writes by teachers and students with 403, and another school's timetable with 404", async () => {
      const timetable = await as(school.admin).timetables.create({ name: "Guarded" });
      for (const person of [school.teacher, school.student]) {
        await expect(as(person).timetables.create({ name: "Mine" })).rejects.toMatchObject({ code: "FORBIDDEN" });
        await expect(as(person).timetables.update({ id: timetable.id, name: "Taken" })).rejects.toMatchObject({ code: "FORBIDDEN" });
        await expect(as(person).timetables.delete({ id: timetable.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
        await expect(
          as(person).timetables.createEntry({ timetable_id: timetable.id, day: 1, period: 1, start_time: "09:00", end_time: "10:00" }),
        ).rejects.toMatchObject({ code: "FORBIDDEN" });
      }
      await expect(as(otherSchool.admin).timetables.update({ id: timetable.id, name: "Taken" })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(as(otherSchool.admin).timetables.activate({ id: timetable.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      expect((await as(school.admin).timetables.get({ id: timetable.id })).name).toBe("Guarded");
    });

    it("validates timetables: a class of the school, a class for a class timetable, ordered dates", async () => {
      await expect(as(school.admin).timetables.create({ name: "X", type: "class", class_id: otherClassId })).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
      await expect(as(school.admin).timetables.create({ name: "X", type: "class" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
      await expect(
        as(school.admin).timetables.create({ name: "X", starts_on: "2027-02-01", ends_on: "2027-01-01" }),
      ).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/^End date: must not be before the start date$/) });
      await expect(as(school.admin).timetables.create({ name: "  " })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    });
  });

  describe("timetable entries", () => {
    let timetableId: string;

    beforeAll(async () => {
      timetableId = (await as(school.admin).timetables.create({ name: "Entries" })).id;
    });

    const entry = (overrides: Record<string, unknown> = {}) => ({
      timetable_id: timetableId,
      day: 1,
      period: 1,
      start_time: "09:00",
      end_time: "09:50",
      ...overrides,
    });

    it("creates, edits and deletes entries with day, period, times, room, class and teacher", async () => {
      const created = await as(school.admin).timetables.createEntry(
        entry({ day: 2, period: 3, room: "B12", class_id: classId, teacher_id: school.teacher.id }),
      );
      expect(created).toMatchObject({ day: 2, period: 3, start_time: "09:00:00", end_time: "09:50:00", room: "B12", class_id: classId });
      const edited = await as(school.head).timetables.updateEntry({ id: created.id, room: "B14", end_time: "10:00" });
      expect(edited).toMatchObject({ room: "B14", end_time: "10:00:00", teacher_id: school.teacher.id });
      const { entries } = await as(school.teacher).timetables.get({ id: timetableId });
      expect(entries.map((row) => row.id)).toContain(created.id);
      await as(school.admin).timetables.deleteEntry({ id: created.id });
      expect((await as(school.admin).timetables.get({ id: timetableId })).entries.map((row) => row.id)).not.toContain(created.id);
    });

    it("refuses an end time that is not after the start time with 400", async () => {
      for (const times of [{ start_time: "10:00", end_time: "09:00" }, { start_time: "10:00", end_time: "10:00" }]) {
        await expect(as(school.admin).timetables.createEntry(entry({ period: 7, ...times }))).rejects.toMatchObject({
          code: "BAD_REQUEST",
          message: expect.stringMatching(/^End time: must be after the start time$/),
        });
      }
      const created = await as(school.admin).timetables.createEntry(entry({ period: 8 }));
      await expect(as(school.admin).timetables.updateEntry({ id: created.id, end_time: "08:00" })).rejects.toMatchObject({
        code: "BAD_REQUEST",
      });
      await expect(as(school.admin).timetables.createEntry(entry({ day: 8 }))).rejects.toMatchObject({ code: "BAD_REQUEST" });
      await expect(as(school.admin).timetables.createEntry(entry({ start_time: "25:00" }))).rejects.toMatchObject({ code: "BAD_REQUEST" });
    });

    it("refuses a teacher booked twice in one period with 409 naming the teacher", async () => {
      await as(school.admin).timetables.createEntry(entry({ day: 3, period: 2, room: "Lab 1", teacher_id: school.teacher.id }));
      await expect(
        as(school.admin).timetables.createEntry(entry({ day: 3, period: 2, room: "Lab 2", teacher_id: school.teacher.id })),
      ).rejects.toMatchObject({
        code: "CONFLICT",
        message: expect.stringContaining(`Teacher ${school.teacher.full_name} is already booked on Wednesday period 2`),
      });
      // Another period, or another teacher, is fine.
      await as(school.admin).timetables.createEntry(entry({ day: 3, period: 3, room: "Lab 2", teacher_id: school.teacher.id }));
      await as(school.admin).timetables.createEntry(entry({ day: 3, period: 2, room: "Lab 3", teacher_id: school.otherTeacher.id }));
    });

    it("refuses a room booked twice in one period with 409 naming the room, also on edit", async () => {
      await as(school.admin).timetables.createEntry(entry({ day: 4, period: 1, room: "Hall" }));
      await expect(as(school.admin).timetables.createEntry(entry({ day: 4, period: 1, room: "Hall" }))).rejects.toMatchObject({
        code: "CONFLICT",
        message: expect.stringContaining("Room Hall is already booked on Thursday period 1"),
      });
      const elsewhere = await as(school.admin).timetables.createEntry(entry({ day: 4, period: 1, room: "Gym" }));
      await expect(as(school.admin).timetables.updateEntry({ id: elsewhere.id, room: "Hall" })).rejects.toMatchObject({
        code: "CONFLICT",
        message: expect.stringContaining("Room Hall"),
      });
      // The failed edit changed nothing, and the transaction was not left broken.
      const { entries } = await as(school.admin).timetables.get({ id: timetableId });
      expect(entries.find((row) => row.id === elsewhere.id)?.room).toBe("Gym");
    });

    it("keeps the no-double-booking rule under concurrent writes: exactly one of them wins", async () => {
      const attempts = await Promise.allSettled(
        ["R1", "R2", "R3", "R4"].map((room) =>
          as(school.admin).timetables.createEntry(entry({ day: 5, period: 4, room, teacher_id: school.head.id })),
        ),
      );
      expect(attempts.filter((attempt) => attempt.status === "fulfilled")).toHaveLength(1);
      for (const attempt of attempts.filter((attempt) => attempt.status === "rejected")) {
        expect(attempt.reason).toMatchObject({ code: "CONFLICT" });
      }
      const { entries } = await as(school.admin).timetables.get({ id: timetableId });
      expect(entries.filter((row) => row.day === 5 && row.period === 4)).toHaveLength(1);
    });

    it("refuses a teacher who is not staff of the school, and a class of another school", async () => {
      await expect(as(school.admin).timetables.createEntry(entry({ period: 9, teacher_id: school.student.id }))).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: "Teacher: not a member of staff of this school",
      });
      await expect(
        as(school.admin).timetables.createEntry(entry({ period: 9, teacher_id: otherSchool.teacher.id })),
      ).rejects.toMatchObject({ code: "BAD_REQUEST" });
      await expect(as(school.admin).timetables.createEntry(entry({ period: 9, class_id: otherClassId }))).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
    });

    it("hides entries and timetables of another school (404)", async () => {
      const mine = await as(school.admin).timetables.createEntry(entry({ day: 6, period: 1 }));
      await expect(as(otherSchool.admin).timetables.updateEntry({ id: mine.id, room: "X" })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(as(otherSchool.admin).timetables.deleteEntry({ id: mine.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(as(otherSchool.admin).timetables.get({ id: timetableId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    });
  });

  describe("a person's own timetable (timetables.mine)", () => {
    let mine: School;
    let elsewhere: School;
    let taughtClass: string;
    let otherClass: string;
    const lessonsOf = async (person: { id: string }) =>
      (await as(person).timetables.mine()).lessons.map((lesson) => `${lesson.day}.${lesson.period} ${lesson.class_name ?? "-"} ${lesson.timetable_name}`);

    beforeAll(async () => {
      const { db } = database();
      mine = await createSchool(db, "Mine");
      elsewhere = await createSchool(db, "Elsewhere");
      await asService(db, async (tx) => {
        taughtClass = (await createClass(tx, { instituteId: mine.institute.id, name: "9B", teacherId: mine.otherTeacher.id })).id;
        otherClass = (await createClass(tx, { instituteId: mine.institute.id, name: "9C" })).id;
        await tx.insert(enrollments).values({ class_id: taughtClass, student_id: mine.student.id });
        await tx.insert(enrollments).values({ class_id: otherClass, student_id: mine.otherStudent.id, active: false });
      });
      const lesson = (timetable_id: string, day: number, period: number, fields: { class_id?: string; teacher_id?: string }) =>
        as(mine.admin).timetables.createEntry({ timetable_id, day, period, start_time: "09:00", end_time: "10:00", ...fields });

      const week = await as(mine.admin).timetables.create({ name: "This year" });
      await as(mine.admin).timetables.activate({ id: week.id });
      await lesson(week.id, 1, 1, { class_id: otherClass, teacher_id: mine.teacher.id });
      await lesson(week.id, 1, 2, { class_id: taughtClass, teacher_id: mine.head.id });
      await lesson(week.id, 2, 1, { class_id: otherClass, teacher_id: mine.head.id });
      const draft = await as(mine.admin).timetables.create({ name: "Next year" }); // inactive
      await lesson(draft.id, 3, 1, { class_id: otherClass, teacher_id: mine.teacher.id });
      const classWeek = await as(mine.admin).timetables.create({ name: "9B clubs", type: "class", class_id: taughtClass });
      await as(mine.admin).timetables.activate({ id: classWeek.id });
      await lesson(classWeek.id, 4, 1, {}); // no class of its own: the timetable's class

      // Rows no screen could write: another school's teacher on this school's timetable, and this
      // school's teacher on another school's; neither may show.
      await asService(db, async (tx) => {
        await tx.insert(timetableEntries).values({ timetable_id: week.id, day: 5, period: 1, start_time: "09:00", end_time: "10:00", teacher_id: elsewhere.teacher.id });
        const [theirs] = await tx.insert(timetables).values({ institute_id: elsewhere.institute.id, name: "Theirs", active: true }).returning();
        await tx.insert(timetableEntries).values({ timetable_id: theirs!.id, day: 5, period: 2, start_time: "09:00", end_time: "10:00", teacher_id: mine.teacher.id });
      });
    });

    it("gives a teacher the lessons they teach in the active timetables, with class, teacher and timetable names", async () => {
      const { lessons } = await as(mine.teacher).timetables.mine();
      expect(lessons).toEqual([
        expect.objectContaining({ day: 1, period: 1, class_id: otherClass, class_name: "9C", teacher_id: mine.teacher.id, teacher_name: mine.teacher.full_name, timetable_name: "This year" }),
      ]);
      expect(await lessonsOf(mine.head)).toEqual(["1.2 9B This year", "2.1 9C This year"]);
    });

    it("gives a class's main teacher its lessons, including a class timetable's lessons without a class of their own", async () => {
      expect(await lessonsOf(mine.otherTeacher)).toEqual(["1.2 9B This year", "4.1 9B 9B clubs"]);
    });

    it("gives a class's other teachers (co-teachers, as a roster names them) its lessons as well", async () => {
      const { db } = database();
      await asService(db, (tx) => tx.insert(classTeachers).values({ class_id: taughtClass, teacher_id: mine.teacher.id }));
      try {
        expect(await lessonsOf(mine.teacher)).toEqual(["1.1 9C This year", "1.2 9B This year", "4.1 9B 9B clubs"]);
      } finally {
        await asService(db, (tx) => tx.delete(classTeachers).where(eq(classTeachers.teacher_id, mine.teacher.id)));
      }
    });

    it("gives a student the lessons of the classes they are actively enrolled in", async () => {
      expect(await lessonsOf(mine.student)).toEqual(["1.2 9B This year", "4.1 9B 9B clubs"]);
      expect(await lessonsOf(mine.otherStudent)).toEqual([]);
    });

    it("gives nothing to someone without lessons, and nothing of this school to a teacher of another school", async () => {
      expect(await lessonsOf(mine.admin)).toEqual([]);
      expect(await lessonsOf(elsewhere.teacher)).toEqual([]);
      expect(await lessonsOf(elsewhere.admin)).toEqual([]);
    });
  });
});
