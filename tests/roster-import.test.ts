import fs from "node:fs";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { asService } from "../server/db/rls";
import { classes, enrollments, instituteMemberships, users } from "../server/db/schema";
import { createUser } from "../server/identity/users";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";

const FIXTURES = path.join(import.meta.dirname, "fixtures/roster");
const fixture = (name: string) => ({ name: path.basename(name), base64: fs.readFileSync(path.join(FIXTURES, name)).toString("base64") });
const csvFile = (text: string, name = "pupils.csv") => ({ name, base64: Buffer.from(text).toString("base64") });
const bundle = fixture("oneroster-riverside.zip");
/** A text fixture with its emails moved to another domain: emails are unique across the installation. */
const fixtureAt = (name: string, domain: string) => ({
  name: path.basename(name),
  base64: Buffer.from(fs.readFileSync(path.join(FIXTURES, name), "utf8").replace(/riverside\.example\.org/gi, domain)).toString("base64"),
});

describeOnEachDatabase("roster import", (database) => {
  let school: School;
  let otherSchool: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  const schoolUsers = (instituteId: string) =>
    asService(database().db, (tx) => tx.select().from(users).where(eq(users.school_id, instituteId)));

  beforeAll(async () => {
    school = await createSchool(database().db, "Riverside");
    otherSchool = await createSchool(database().db, "Elsewhere");
  });

  describe("a OneRoster bundle", () => {
    it("previews people, classes and enrollments with reasons for every skipped row, writing nothing", async () => {
      const preview = await as(school.admin).rosterImport.preview({ files: [bundle] });
      expect(preview.format).toBe("oneroster");
      expect(preview.applied).toBe(false);
      expect(preview.counts).toMatchObject({ create: 9, update: 0, unchanged: 0, skip: 3, classesCreate: 2, enrollmentsCreate: 7 });
      expect(preview.people.create.map((person) => person.name)).toContain("Chloé Dubois");
      const rachel = preview.people.create.find((person) => person.name === "Rachel Okafor")!;
      expect(rachel).toMatchObject({ role: "school_admin", username: "r.okafor", email: "r.okafor@riverside.example.org" });
      expect(preview.people.create.find((person) => person.name === "Chloé Dubois")).toMatchObject({ yearGroup: "10", classes: ["10A/Ma", "10B/En"] });
      const reasons = Object.fromEntries(preview.skipped.map((row) => [row.row, row.reason]));
      expect(reasons["users.csv row 11"]).toBe("marked to be deleted in the school's system");
      expect(reasons["users.csv row 12"]).toBe('unknown role "parent": Markbook has no parent accounts');
      expect(reasons["users.csv row 13"]).toBe('unknown role "aide": Markbook has no aide accounts');
      expect(preview.classes.create).toEqual([
        expect.objectContaining({ name: "10A/Ma", sisId: "cls-10a-ma", teacher: "David Lindqvist" }),
        expect.objectContaining({ name: "10B/En", sisId: "cls-10b-en", teacher: "Sarah Mensah" }),
      ]);
      expect(await schoolUsers(school.institute.id)).toHaveLength(6); // the fixture school's own six
    });

    it("applies it in one go, and the same bundle again changes nothing", async () => {
      const applied = await as(school.admin).rosterImport.commit({ files: [bundle] });
      expect(applied.applied).toBe(true);
      expect(applied.counts).toMatchObject({ create: 9, skip: 3, classesCreate: 2, enrollmentsCreate: 7 });

      const { db } = database();
      const imported = await asService(db, (tx) =>
        tx.select().from(users).where(sql`${users.school_id} = ${school.institute.id} and ${users.sis_id} is not null`),
      );
      expect(imported).toHaveLength(9);
      for (const user of imported) expect(user.password_hash).toBeNull();
      const chloe = imported.find((user) => user.sis_id === "usr-stu-03")!;
      expect(chloe).toMatchObject({ full_name: "Chloé Dubois", display_name: "Chloé", year_group: "10", user_type: "student", username: "chloe.dubois" });
      const rachel = imported.find((user) => user.sis_id === "usr-admin-01")!;
      const roles = await asService(db, (tx) => tx.select().from(instituteMemberships).where(eq(instituteMemberships.user_id, rachel.id)));
      expect(roles.map((row) => row.role)).toEqual(["school_admin"]);
      const schoolClasses = await as(school.admin).classes.list();
      const maths = schoolClasses.classes.find((row) => row.name === "10A/Ma")!;
      expect(maths).toMatchObject({ subject: "Mathematics", teacher_name: "David Lindqvist" });
      const mathsStudents = await as(school.admin).classes.students({ classId: maths.id });
      expect(mathsStudents.students.map((student) => student.full_name)).toEqual(["Chloé Dubois", "Ben Hartley", "Amara Nwosu"]); // by surname

      const again = await as(school.admin).rosterImport.preview({ files: [bundle] });
      expect(again.counts).toEqual({ create: 0, update: 0, unchanged: 9, skip: 3, classesCreate: 0, classesUpdate: 0, classesUnchanged: 2, enrollmentsCreate: 0 });
      const reapplied = await as(school.admin).rosterImport.commit({ files: [bundle] });
      expect(reapplied.counts.unchanged).toBe(9);
      expect(await schoolUsers(school.institute.id)).toHaveLength(15);
    });

    it("accepts the bundle's three CSV files given separately, as the zip", async () => {
      const files = ["users.csv", "classes.csv", "enrollments.csv"].map((name) => fixture(`oneroster/${name}`));
      const preview = await as(school.admin).rosterImport.preview({ files });
      expect(preview.format).toBe("oneroster");
      expect(preview.counts).toMatchObject({ create: 0, unchanged: 9, classesUnchanged: 2, enrollmentsCreate: 0 });
    });
  });

  describe("a school export's CSV", () => {
    let exportSchool: School;
    beforeAll(async () => {
      exportSchool = await createSchool(database().db, "Export");
    });

    it("guesses the mapping from the header, handles BOM, semicolons, quotes, CRLF and blank lines, and says why rows are skipped", async () => {
      const preview = await as(exportSchool.admin).rosterImport.preview({ files: [fixtureAt("school-export.csv", "export.example.org")] });
      expect(preview.format).toBe("csv");
      expect(preview.mapping).toMatchObject({
        sisId: "Admission No", lastName: "Surname", firstName: "Forename", yearGroup: "Year", email: "Email Address", role: "Role", classCodes: ["Classes"],
      });
      expect(preview.columns.find((column) => column.name === "Forename")?.samples).toEqual(["Amara", "Ben", "Chloé"]);
      expect(preview.people.create.map((person) => [person.row, person.name, person.role])).toEqual([
        ["row 2", "Amara Nwosu", "student"],
        ["row 3", "Ben Hartley", "student"],
        ["row 5", "Chloé Dubois", "student"],
        ["row 6", "David Lindqvist", "teacher"],
        ["row 10", 'Eliza =HYPERLINK("http://evil.example","Grant")', "student"],
      ]);
      expect(preview.skipped).toEqual([
        { row: "row 7", name: "Dev Patel", reason: "no email or username" },
        { row: "row 8", name: "Nadia Haddad", reason: 'unknown role "Parent": Markbook has no parent accounts' },
        { row: "row 9", name: "Amara Nwosu", reason: "duplicate of row 2" },
      ]);
      expect(preview.classes.create.map((row) => [row.name, row.teacher])).toEqual([
        ["10A/Ma", "David Lindqvist"],
        ["10B/En", null],
      ]);
    });

    it("stores a formula as text, never evaluated", async () => {
      await as(exportSchool.admin).rosterImport.commit({ files: [fixtureAt("school-export.csv", "export.example.org")] });
      const stored = await schoolUsers(exportSchool.institute.id);
      expect(stored.find((user) => user.sis_id === "A1005")?.full_name).toBe('Eliza =HYPERLINK("http://evil.example","Grant")');
    });

    it("matches nothing of another school's, even the same emails and SIS ids: those rows are skipped", async () => {
      // exportSchool holds these people now; otherSchool's import of the same file must not touch them.
      const before = await schoolUsers(exportSchool.institute.id);
      const preview = await as(otherSchool.admin).rosterImport.preview({ files: [fixtureAt("school-export.csv", "export.example.org")] });
      expect(preview.counts).toMatchObject({ create: 0, update: 0, unchanged: 0 });
      expect(preview.skipped.filter((row) => row.reason === "email already used by another Markbook account").map((row) => row.row)).toEqual([
        "row 2", "row 3", "row 5", "row 6", "row 10",
      ]);
      await as(otherSchool.admin).rosterImport.commit({ files: [fixtureAt("school-export.csv", "export.example.org")] });
      expect(await schoolUsers(exportSchool.institute.id)).toEqual(before);
    });

    it("uses the mapping chosen on screen, and reports a mapping that cannot work instead of a plan", async () => {
      const text = "Pupil,Contact,Sets\nZoe Quinn,zoe.quinn@example.org,7X\n";
      const unusable = await as(otherSchool.admin).rosterImport.preview({ files: [csvFile(text)] });
      expect(unusable.mappingProblems).toEqual(["Choose the column with names (or first and last names)", "Choose the column with email addresses or usernames"]);
      expect(unusable.counts.create).toBe(0);
      await expect(as(otherSchool.admin).rosterImport.commit({ files: [csvFile(text)] })).rejects.toMatchObject({ code: "BAD_REQUEST" });

      const mapping = { fullName: "Pupil", email: "Contact", classCodes: ["Sets"] };
      const preview = await as(otherSchool.admin).rosterImport.preview({ files: [csvFile(text)], mapping });
      expect(preview.people.create).toEqual([expect.objectContaining({ name: "Zoe Quinn", username: "zoe.quinn", classes: ["7X"], role: "student" })]);
      const wrong = await as(otherSchool.admin).rosterImport.preview({ files: [csvFile(text)], mapping: { ...mapping, email: "E-mail" } });
      expect(wrong.mappingProblems).toEqual(['Email: the file has no column "E-mail"']);
    });
  });

  describe("matching and updates", () => {
    it("matches by SIS id, else email in any case, else username; updates what changed and never erases or deletes", async () => {
      const admin = as(otherSchool.admin);
      await admin.rosterImport.commit({
        files: [csvFile("id,name,email,username,year\nS1,Ann Able,ann@able.example.org,,7\nS2,Bob Best,bob@best.example.org,,7\n,Cy Cole,,cy.cole,8\n")],
      });
      const preview = await admin.rosterImport.preview({
        files: [csvFile("id,name,email,username,year\nS1,Ann Able-Smith,ANN.NEW@able.example.org,,8\n,Bob Best,BOB@best.example.org,,\n,Cy Cole,,cy.cole,8\n")],
      });
      expect(preview.people.update).toEqual([
        expect.objectContaining({
          row: "row 2",
          changes: ["email: ann@able.example.org → ann.new@able.example.org", "name: Ann Able → Ann Able-Smith", "year group: 7 → 8"],
        }),
      ]);
      expect(preview.people.unchanged.map((person) => person.row)).toEqual(["row 3", "row 4"]);
      const cy = preview.people.unchanged[1]!;
      expect(cy).toMatchObject({ email: "cy.cole@no-email.invalid", username: "cy.cole" });
      await admin.rosterImport.commit({ files: [csvFile("id,name,email\nS1,Ann Able-Smith,ann.new@able.example.org\n")] });
      const [ann] = await asService(database().db, (tx) => tx.select().from(users).where(sql`${users.sis_id} = 'S1' and ${users.school_id} = ${otherSchool.institute.id}`));
      expect(ann).toMatchObject({ email: "ann.new@able.example.org", full_name: "Ann Able-Smith", year_group: "7" });
    });

    it("never matches, updates or reveals another school's people, even with the same email or SIS id", async () => {
      const before = await schoolUsers(school.institute.id);
      const file = csvFile(`id,name,email\nusr-stu-01,Someone Else,amara.nwosu@riverside.example.org\nusr-stu-02,Another Person,fresh.person@example.org\n`);
      const preview = await as(otherSchool.admin).rosterImport.preview({ files: [file] });
      expect(preview.skipped).toEqual([{ row: "row 2", name: "Someone Else", reason: "email already used by another Markbook account" }]);
      expect(preview.people.create.map((person) => person.name)).toEqual(["Another Person"]);
      await as(otherSchool.admin).rosterImport.commit({ files: [file] });
      expect(await schoolUsers(school.institute.id)).toEqual(before);
    });

    it("skips a username held by another account, and keeps a role it would change, with the reason", async () => {
      const { db } = database();
      const taken = await asService(db, (tx) => createUser(tx, { email: `taken.${crypto.randomUUID()}@example.org`, fullName: "Taken Name" }));
      const twin = await as(school.admin).rosterImport.preview({ files: [csvFile(`name,username\nTaken Twin,${taken.username}\n`)] });
      expect(twin.skipped).toEqual([{ row: "row 2", name: "Taken Twin", reason: `username "${taken.username}" already used by another Markbook account` }]);
      const preview = await as(school.admin).rosterImport.preview({
        files: [csvFile(`name,email,role\nDavid Lindqvist,d.lindqvist@riverside.example.org,student\n`)],
      });
      expect(preview.people.unchanged).toEqual([
        expect.objectContaining({ role: "teacher", notes: ["role stays teacher: change roles on the People page"] }),
      ]);
    });
  });

  describe("who may import", () => {
    it("refuses a teacher, a student and someone without a school", async () => {
      for (const person of [school.teacher, school.head, school.student]) {
        await expect(as(person).rosterImport.preview({ files: [bundle] })).rejects.toMatchObject({ code: "FORBIDDEN" });
        await expect(as(person).rosterImport.commit({ files: [bundle] })).rejects.toMatchObject({ code: "FORBIDDEN" });
      }
      const loner = await asService(database().db, (tx) => createUser(tx, { email: `loner.${crypto.randomUUID()}@example.org`, fullName: "Lone Ranger" }));
      await expect(as(loner).rosterImport.preview({ files: [bundle] })).rejects.toMatchObject({ code: "FORBIDDEN" });
    });
  });

  describe("all or nothing", () => {
    it("writes nothing when a write fails midway (an enrollment refused after the people were inserted)", async () => {
      const fresh = await createSchool(database().db, "Atomic");
      const atomicBundle = ["users.csv", "classes.csv", "enrollments.csv"].map((name) => fixtureAt(`oneroster/${name}`, `atomic-${fresh.institute.id}.example.org`));
      const { db } = database();
      // A trigger that refuses enrollments into one class: the people and classes before it are undone too.
      await asService(db, async (tx) => {
        await tx.execute(sql`create or replace function pg_temp_refuse_enrollment() returns trigger language plpgsql as $$
          begin
            if exists (select 1 from classes where id = new.class_id and name = '10B/En' and institute_id = ${sql.raw(`'${fresh.institute.id}'`)}) then
              raise exception 'refused for the test';
            end if;
            return new;
          end $$`);
        await tx.execute(sql`create trigger refuse_enrollment_for_test before insert on enrollments for each row execute function pg_temp_refuse_enrollment()`);
      });
      try {
        await expect(as(fresh.admin).rosterImport.commit({ files: atomicBundle })).rejects.toMatchObject({ code: "INTERNAL_SERVER_ERROR" });
      } finally {
        await asService(db, async (tx) => {
          await tx.execute(sql`drop trigger refuse_enrollment_for_test on enrollments`);
          await tx.execute(sql`drop function pg_temp_refuse_enrollment()`);
        });
      }
      expect(await schoolUsers(fresh.institute.id)).toHaveLength(6);
      const freshClasses = await asService(db, (tx) => tx.select().from(classes).where(eq(classes.institute_id, fresh.institute.id)));
      expect(freshClasses).toEqual([]);
      const freshEnrollments = await asService(db, (tx) =>
        tx.select().from(enrollments).innerJoin(classes, eq(classes.id, enrollments.class_id)).where(eq(classes.institute_id, fresh.institute.id)),
      );
      expect(freshEnrollments).toEqual([]);
      // And with the obstacle gone, the same import goes through.
      expect((await as(fresh.admin).rosterImport.commit({ files: atomicBundle })).counts.create).toBe(9);
    });
  });

  describe("files that are not a roster", () => {
    it("answers a clear 400 for an empty file, random bytes, a broken zip and a zip without users.csv", async () => {
      const admin = as(school.admin);
      const cases: [{ name: string; base64: string }, RegExp][] = [
        [csvFile(""), /pupils\.csv is empty/],
        [csvFile("\n\n  \n"), /pupils\.csv is empty/],
        [{ name: "photo.csv", base64: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).toString("base64") }, /photo\.csv is not a CSV file/],
        [{ name: "bundle.zip", base64: Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]).toString("base64") }, /bundle\.zip is not a zip file that can be opened/],
      ];
      for (const [file, message] of cases) {
        await expect(admin.rosterImport.preview({ files: [file] }), file.name).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(message) });
      }
    });
  });
});
