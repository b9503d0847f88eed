import crypto from "node:crypto";
import { encode } from "next-auth/jwt";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as bootstrapRoute } from "../app/me/bootstrap/route";
import { verifyCredentials } from "../server/sign-in/credentials";
import { SIGNED_IN_AT_CLAIM, sessionCookieName, sessionOptions } from "../server/auth/next-auth";
import { authenticateSessionCookie } from "../server/auth/session";
import { createPersonalAccessToken } from "../server/identity/personal-tokens";
import { asUser } from "../server/db/rls";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";

const unique = () => crypto.randomBytes(4).toString("hex");

describeOnEachDatabase("people of a school", (database) => {
  let school: School;
  let otherSchool: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const admin = () => as(school.admin);
  let mathsId: string;

  beforeAll(async () => {
    school = await createSchool(database().db, "Peopled");
    otherSchool = await createSchool(database().db, "Faraway");
    mathsId = (await admin().classes.create({ name: "Maths 9", teacherId: school.teacher.id })).id;
    await admin().classes.addStudent({ classId: mathsId, studentId: school.student.id });
  });

  describe("who may manage people", () => {
    it("refuses everyone but a school admin, saying so", async () => {
      for (const person of [school.head, school.teacher, school.student]) {
        const caller = as(person);
        const refusal = { code: "FORBIDDEN", message: "Only a school admin manages people" };
        await expect(caller.people.list({})).rejects.toMatchObject(refusal);
        await expect(caller.people.get({ user_id: school.student.id })).rejects.toMatchObject(refusal);
        await expect(caller.people.add({ full_name: "Sneaky", email: `sneaky.${unique()}@example.org`, role: "school_admin" })).rejects.toMatchObject(refusal);
        await expect(caller.people.changeRole({ user_id: person.id, role: "school_admin" })).rejects.toMatchObject(refusal);
        await expect(caller.people.resetPassword({ user_id: school.student.id })).rejects.toMatchObject(refusal);
      }
    });

    it("answers not found for a person of another school, on every procedure", async () => {
      const theirs = { user_id: otherSchool.teacher.id };
      const notFound = { code: "NOT_FOUND", message: "Person not found" };
      await expect(admin().people.get(theirs)).rejects.toMatchObject(notFound);
      await expect(admin().people.edit({ ...theirs, full_name: "Taken over" })).rejects.toMatchObject(notFound);
      await expect(admin().people.changeRole({ ...theirs, role: "student" })).rejects.toMatchObject(notFound);
      await expect(admin().people.setActive({ ...theirs, active: false })).rejects.toMatchObject(notFound);
      await expect(admin().people.resetPassword(theirs)).rejects.toMatchObject(notFound);
      await expect(admin().people.get({ user_id: "not-an-id" })).rejects.toMatchObject(notFound);
      const them = await as(otherSchool.admin).people.get(theirs);
      expect(them).toMatchObject({ full_name: otherSchool.teacher.full_name, active: true, has_password: false });
    });
  });

  describe("listing", () => {
    it("lists the school's people by surname with their roles, classes and status, and the total", async () => {
      const { people, total } = await admin().people.list({});
      expect(total).toBe(6);
      expect(people.map((person) => person.full_name)).toEqual([...people.map((person) => person.full_name)].sort((a, b) => a.localeCompare(b)));
      expect(people.map((person) => person.id)).not.toContain(otherSchool.admin.id);
      expect(people.find((person) => person.id === school.student.id)).toEqual({
        id: school.student.id,
        full_name: school.student.full_name,
        display_name: school.student.display_name,
        email: school.student.email,
        username: school.student.username,
        roles: ["student"],
        year_group: null,
        classes: ["Maths 9"],
        active: true,
        has_password: false,
        must_change_password: false,
      });
      expect(people.find((person) => person.id === school.teacher.id)).toMatchObject({ roles: ["teacher"], classes: ["Maths 9"] });
    });

    it("searches names, emails and usernames in any case, trimmed, with % and _ as plain letters", async () => {
      const names = async (search: string) => (await admin().people.list({ search })).people.map((person) => person.id);
      expect(await names("  STUDENT peopled ")).toEqual([school.student.id]);
      expect(await names(school.teacher.email.toUpperCase())).toEqual([school.teacher.id]);
      expect(await names(school.otherStudent.username)).toEqual([school.otherStudent.id]);
      expect(await names("%")).toEqual([]);
      expect(await names("_")).toEqual([]);
    });

    it("filters by role, by class (its students and teacher) and by status", async () => {
      const ids = async (filters: Parameters<ReturnType<typeof admin>["people"]["list"]>[0]) =>
        (await admin().people.list(filters)).people.map((person) => person.id).sort();
      expect(await ids({ role: "student" })).toEqual([school.student.id, school.otherStudent.id].sort());
      expect(await ids({ class_id: mathsId })).toEqual([school.student.id, school.teacher.id].sort());
      expect(await ids({ class_id: crypto.randomUUID() })).toEqual([]);
      expect(await ids({ status: "deactivated" })).toEqual([]);
      expect((await ids({ status: "active" })).length).toBe(6);
    });

    it("pages with limit and offset, the total counting every match", async () => {
      const all = (await admin().people.list({})).people.map((person) => person.id);
      const first = await admin().people.list({ limit: 4 });
      const rest = await admin().people.list({ limit: 4, offset: 4 });
      expect(first.total).toBe(6);
      expect(rest.total).toBe(6);
      expect([...first.people, ...rest.people].map((person) => person.id)).toEqual(all);
      expect((await admin().people.list({ offset: 100 })).people).toEqual([]);
      await expect(admin().people.list({ limit: 201 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
      await expect(admin().people.list({ limit: 0 })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    });
  });

  describe("adding and editing", () => {
    it("adds a student with a year group and classes, without a password", async () => {
      const email = `New.Student.${unique()}@Example.org`;
      const added = await admin().people.add({ full_name: "Nova Student", email, role: "student", year_group: "Year 9", class_ids: [mathsId] });
      expect(added).toMatchObject({
        full_name: "Nova Student",
        display_name: "Nova",
        email: email.toLowerCase(),
        roles: ["student"],
        year_group: "Year 9",
        classes: ["Maths 9"],
        active: true,
        has_password: false,
        must_change_password: false,
      });
      expect(await verifyCredentials(database().db, { email, password: "anything-at-all" })).toBeNull();
    });

    it("refuses an email someone uses, in this school or another, with the same words", async () => {
      for (const email of [school.teacher.email, otherSchool.teacher.email.toUpperCase()]) {
        await expect(admin().people.add({ full_name: "Twin", email, role: "teacher" })).rejects.toMatchObject({
          code: "CONFLICT",
          message: "Someone already uses this email address",
        });
      }
      await expect(admin().people.edit({ user_id: school.otherStudent.id, email: otherSchool.student.email })).rejects.toMatchObject({
        code: "CONFLICT",
        message: "Someone already uses this email address",
      });
    });

    it("refuses classes of another school, and classes for staff", async () => {
      const theirClass = (await as(otherSchool.admin).classes.create({ name: `Theirs ${unique()}` })).id;
      await expect(
        admin().people.add({ full_name: "Stray", email: `stray.${unique()}@example.org`, role: "student", class_ids: [theirClass] }),
      ).rejects.toMatchObject({ code: "BAD_REQUEST", message: "Choose classes of your school" });
      await expect(
        admin().people.add({ full_name: "Staff", email: `staff.${unique()}@example.org`, role: "teacher", class_ids: [mathsId] }),
      ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    });

    it("refuses a blank name and a bad email, naming the field", async () => {
      await expect(admin().people.add({ full_name: "  ", email: `x.${unique()}@example.org`, role: "student" })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringMatching(/name is required/),
      });
      await expect(admin().people.add({ full_name: "X", email: "not an email", role: "student" })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringMatching(/email/),
      });
    });

    it("edits names, email and year group, and clears the year group", async () => {
      const person = await admin().people.add({ full_name: "Edith Old", email: `edith.${unique()}@example.org`, role: "student", year_group: "8" });
      const newEmail = `edith.new.${unique()}@example.org`;
      const edited = await admin().people.edit({ user_id: person.id, full_name: "Edith New", display_name: "Edie", email: newEmail, year_group: "9" });
      expect(edited).toMatchObject({ full_name: "Edith New", display_name: "Edie", email: newEmail, year_group: "9" });
      expect((await admin().people.edit({ user_id: person.id, year_group: "" })).year_group).toBeNull();
      expect((await admin().people.edit({ user_id: person.id, email: newEmail.toUpperCase() })).email).toBe(newEmail);
    });
  });

  describe("roles and activity", () => {
    it("gives each person exactly one role in the school", async () => {
      const person = await admin().people.add({ full_name: "Rolling Stone", email: `rolling.${unique()}@example.org`, role: "student" });
      expect((await admin().people.changeRole({ user_id: person.id, role: "teacher" })).roles).toEqual(["teacher"]);
      expect((await admin().people.changeRole({ user_id: person.id, role: "department_head" })).roles).toEqual(["department_head"]);
      expect((await admin().people.list({ role: "student", search: "Rolling" })).total).toBe(0);
    });

    it("never lets an admin demote or deactivate themselves, nor leaves the school without an active admin", async () => {
      await expect(admin().people.changeRole({ user_id: school.admin.id, role: "teacher" })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(admin().people.setActive({ user_id: school.admin.id, active: false })).rejects.toMatchObject({ code: "FORBIDDEN" });

      const second = await admin().people.add({ full_name: "Second Admin", email: `second.${unique()}@example.org`, role: "school_admin" });
      await admin().people.setActive({ user_id: second.id, active: false });
      // The deactivated admin's own (stale) calls cannot take the last active admin's role away.
      await expect(as(second).people.changeRole({ user_id: school.admin.id, role: "teacher" })).rejects.toMatchObject({
        code: "CONFLICT",
        message: expect.stringMatching(/at least one active admin/),
      });
      await expect(as(second).people.setActive({ user_id: school.admin.id, active: false })).rejects.toMatchObject({ code: "CONFLICT" });
      await admin().people.setActive({ user_id: second.id, active: true });
      expect((await as(second).people.changeRole({ user_id: school.admin.id, role: "school_admin" })).roles).toEqual(["school_admin"]);
    });

    it("deactivates and reactivates, listed by status", async () => {
      const person = await admin().people.add({ full_name: "Dormant Mouse", email: `dormant.${unique()}@example.org`, role: "teacher" });
      expect((await admin().people.setActive({ user_id: person.id, active: false })).active).toBe(false);
      expect((await admin().people.list({ status: "deactivated" })).people.map((row) => row.id)).toContain(person.id);
      expect((await admin().people.setActive({ user_id: person.id, active: true })).active).toBe(true);
      expect((await admin().people.list({ status: "deactivated" })).people.map((row) => row.id)).not.toContain(person.id);
    });

    it("stops a deactivated teacher's token, personal token and session at once, over HTTP", async () => {
      const { db } = database();
      const teacher = school.otherTeacher;
      const personal = await asUser(db, teacher.id, (tx) => createPersonalAccessToken(tx, teacher.id, { name: "laptop", ttlDays: 30 }));
      const cookie = `${sessionCookieName}=${await encode({ token: { sub: teacher.id, [SIGNED_IN_AT_CLAIM]: Date.now() }, secret: sessionOptions.secret! })}`;
      const bootstrap = (headers: Record<string, string>) => bootstrapRoute(new Request("http://localhost/me/bootstrap", { headers }));
      expect((await bootstrap({ authorization: `Bearer ${teacher.token}` })).status).toBe(200);
      expect((await bootstrap({ cookie })).status).toBe(200);

      await admin().people.setActive({ user_id: teacher.id, active: false });
      const credentials: Record<string, string>[] = [{ authorization: `Bearer ${teacher.token}` }, { authorization: `Bearer ${personal.token}` }, { cookie }];
      for (const headers of credentials) {
        const response = await bootstrap(headers);
        expect(response.status).toBe(401);
        expect((await response.json()).detail).toEqual(expect.any(String));
      }
      await admin().people.setActive({ user_id: teacher.id, active: true });
      expect((await bootstrap({ cookie })).status).toBe(200);
    });
  });

  describe("passwords", () => {
    it("gives a readable temporary password once, which signs in and must then be replaced", async () => {
      const { db } = database();
      const email = `temp.${unique()}@example.org`;
      const person = await admin().people.add({ full_name: "Tempe Rary", email, role: "teacher" });
      const { temporary_password } = await admin().people.resetPassword({ user_id: person.id });
      expect(temporary_password).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
      expect((await admin().people.resetPassword({ user_id: person.id })).temporary_password).not.toBe(temporary_password);
      const { temporary_password: current } = await admin().people.resetPassword({ user_id: person.id });
      expect(await verifyCredentials(db, { email, password: temporary_password })).toBeNull();
      expect(await verifyCredentials(db, { email, password: current })).toMatchObject({ id: person.id });
      expect(await admin().people.get({ user_id: person.id })).toMatchObject({ has_password: true, must_change_password: true });

      const self = as(person);
      await expect(self.me.choosePassword({ current_password: "wrong-password", new_password: "a-brand-new-one" })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: "The current password is not right",
      });
      await expect(self.me.choosePassword({ current_password: current, new_password: current })).rejects.toMatchObject({ code: "BAD_REQUEST" });
      await expect(self.me.choosePassword({ current_password: current, new_password: "short" })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        message: expect.stringMatching(/at least 8 characters/),
      });
      await self.me.choosePassword({ current_password: current, new_password: "my own secret words" });
      expect(await admin().people.get({ user_id: person.id })).toMatchObject({ has_password: true, must_change_password: false });
      expect(await verifyCredentials(db, { email, password: current })).toBeNull();
      expect(await verifyCredentials(db, { email, password: "my own secret words" })).toMatchObject({ id: person.id });
    });

    it("signs out the sessions begun before a reset, and keeps those begun after", async () => {
      const { db } = database();
      const person = school.head;
      const sessionAt = async (signedInAt: number) => {
        const cookie = `${sessionCookieName}=${await encode({ token: { sub: person.id, [SIGNED_IN_AT_CLAIM]: signedInAt }, secret: sessionOptions.secret! })}`;
        return authenticateSessionCookie(db, new Headers({ cookie }));
      };
      const before = Date.now() - 1000;
      expect(await sessionAt(before)).toEqual({ id: person.id });
      await admin().people.resetPassword({ user_id: person.id });
      expect(await sessionAt(before)).toBeNull();
      expect(await sessionAt(Date.now() + 1)).toEqual({ id: person.id, mustChoosePassword: true });
    });

    it("opens nothing but choosing a password to a session that holds a temporary one, on tRPC and REST", async () => {
      const { db } = database();
      const email = `session.${unique()}@example.org`;
      const person = await admin().people.add({ full_name: "Sess Ion", email, role: "teacher" });
      const { temporary_password } = await admin().people.resetPassword({ user_id: person.id });
      const session = async () => {
        const cookie = `${sessionCookieName}=${await encode({ token: { sub: person.id, [SIGNED_IN_AT_CLAIM]: Date.now() + 1 }, secret: sessionOptions.secret! })}`;
        const caller = createCaller({ db, user: await authenticateSessionCookie(db, new Headers({ cookie })) });
        return { cookie, caller, bootstrap: () => bootstrapRoute(new Request("http://localhost/me/bootstrap", { headers: { cookie } })) };
      };

      const temporary = await session();
      await expect(temporary.caller.me.profile()).rejects.toMatchObject({ code: "FORBIDDEN", message: expect.stringMatching(/Choose your own password first/) });
      await expect(temporary.caller.exam.templates.list({})).rejects.toMatchObject({ code: "FORBIDDEN" });
      const refused = await temporary.bootstrap();
      expect(refused.status).toBe(403);
      expect((await refused.json()).detail).toMatch(/Choose your own password first/);

      await temporary.caller.me.choosePassword({ current_password: temporary_password, new_password: "chosen at last, by me" });
      // The new password ends the session that held the temporary one; the next sign-in opens everything.
      expect(await authenticateSessionCookie(db, new Headers({ cookie: temporary.cookie }))).toBeNull();
      const chosen = await session();
      expect((await chosen.caller.me.profile()).id).toBe(person.id);
      expect((await chosen.bootstrap()).status).toBe(200);
    });
  });
});
