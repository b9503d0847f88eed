import crypto from "node:crypto";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { guessMapping } from "../server/identity/roster-mapping";
import { describeRosterImport } from "../server/identity/roster-summary";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileString } from "./support/hostile-input";

/**
 * Imported classes get their teachers (issue 33, item 4): a CSV's Teacher column names the teacher of a
 * row's classes by username or e-mail; a name that matches no staff member is a note on the class, not a
 * failure; OneRoster's teacher enrollments make the primary teacher the main one and the others its other
 * teachers. Every teacher of an imported class can start its batches.
 */

const file = (name: string, text: string) => ({ name, base64: Buffer.from(text).toString("base64") });
const { seed, cases } = fuzzSettings(10);

describe("the teacher column's header", () => {
  it("is recognised under the usual words, and a staff member's own e-mail column stays their e-mail", () => {
    for (const word of ["Teacher", "Class teacher", "Staff", "Teacher Email", "Teacher username", "Staff code", "Main Teacher"]) {
      expect(guessMapping(["Name", "Email", "Class", word]).teacher, word).toBe(word);
    }
    expect(guessMapping(["Name", "Staff Email", "Class"])).toMatchObject({ email: "Staff Email", teacher: null });
  });
});

describeOnEachDatabase("teachers of imported classes", (database) => {
  let school: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const classNamed = async (name: string) => (await as(school.admin).classes.list()).classes.find((row) => row.name === name)!;

  beforeAll(async () => {
    school = await createSchool(database().db, "Imported");
  });

  it("sets the teacher named by username or e-mail (any case); an unknown one or a student is a note; the same file again changes nothing", async () => {
    const tag = crypto.randomBytes(3).toString("hex");
    const csv = [
      "Name,Email,Class,Teacher",
      `Ada One,ada.${tag}@pupils.example.org,M-${tag},${school.teacher.username}`,
      `Ben Two,ben.${tag}@pupils.example.org,M-${tag},${school.otherTeacher.email.toUpperCase()}`,
      `Cy Three,cy.${tag}@pupils.example.org,E-${tag},nobody.${tag}@example.org`,
      `Di Four,di.${tag}@pupils.example.org,H-${tag},${school.student.email}`,
    ].join("\n");
    const files = [file("pupils.csv", `${csv}\n`)];
    const preview = await as(school.admin).rosterImport.preview({ files });
    expect(preview.mapping?.teacher).toBe("Teacher");
    expect(preview.skipped).toEqual([]);
    const planned = Object.fromEntries(preview.classes.create.map((row) => [row.name, row]));
    expect(planned[`M-${tag}`]).toMatchObject({ teacher: school.teacher.full_name, otherTeachers: [school.otherTeacher.full_name], notes: [] });
    expect(planned[`E-${tag}`]!.teacher).toBeNull();
    expect(planned[`E-${tag}`]!.notes).toEqual([`teacher "nobody.${tag}@example.org" is not staff of the school (no username or e-mail matches): set the class's teachers on its page`]);
    expect(planned[`H-${tag}`]!.teacher).toBeNull();
    expect(planned[`H-${tag}`]!.notes).toHaveLength(1);
    // The command line prints them too.
    expect(describeRosterImport(preview)).toContain(`Classes to check:\n  E-${tag}: teacher "nobody.${tag}@example.org" is not staff of the school`);

    const applied = await as(school.admin).rosterImport.commit({ files });
    expect(applied.counts).toMatchObject({ create: 4, skip: 0, classesCreate: 3 });
    const maths = await classNamed(`M-${tag}`);
    expect(maths).toMatchObject({ teacher_id: school.teacher.id, other_teachers: [{ id: school.otherTeacher.id, full_name: school.otherTeacher.full_name }] });
    // Both teachers find the class in their New batch list.
    for (const teacher of [school.teacher, school.otherTeacher]) {
      expect((await as(teacher).classes.teaching()).classes.map((row) => row.id)).toContain(maths.id);
    }

    const again = await as(school.admin).rosterImport.preview({ files });
    expect(again.counts).toMatchObject({ create: 0, update: 0, unchanged: 4, classesCreate: 0, classesUpdate: 0, enrollmentsCreate: 0 });
  });

  it("adds the named teacher to a class that already has its main teacher; several teachers pair with several classes in order", async () => {
    const tag = crypto.randomBytes(3).toString("hex");
    await as(school.admin).classes.create({ name: `Set-${tag}`, teacherId: school.head.id });
    const csv = [
      "Name,Email,Classes,Class teacher",
      `Eve Five,eve.${tag}@pupils.example.org,Set-${tag},${school.teacher.email}`,
      `Fay Six,fay.${tag}@pupils.example.org,"P-${tag}; Q-${tag}","${school.teacher.username}; ${school.otherTeacher.username}"`,
      `Gus Seven,gus.${tag}@pupils.example.org,"R-${tag}; S-${tag}; T-${tag}","${school.teacher.username}; ${school.otherTeacher.username}"`,
    ].join("\n");
    const result = await as(school.admin).rosterImport.commit({ files: [file("sets.csv", `${csv}\n`)] });
    const updated = result.classes.update.find((row) => row.name === `Set-${tag}`)!;
    expect(updated.changes).toEqual([`teacher added: ${school.teacher.full_name}`]);
    expect((await classNamed(`Set-${tag}`)).other_teachers.map((teacher) => teacher.id)).toEqual([school.teacher.id]);
    expect((await classNamed(`Set-${tag}`)).teacher_id).toBe(school.head.id);
    expect((await classNamed(`P-${tag}`)).teacher_id).toBe(school.teacher.id);
    expect((await classNamed(`Q-${tag}`)).teacher_id).toBe(school.otherTeacher.id);
    for (const code of ["R", "S", "T"]) {
      const row = result.classes.create.find((entry) => entry.name === `${code}-${tag}`)!;
      expect(row.teacher).toBeNull();
      expect(row.notes).toEqual([`row 4 names 2 teachers for 3 classes, so which teaches which is unclear: no teacher is set from that row`]);
    }
  });

  it("a teacher row of the same file is the teacher its pupils' rows name, and a teacher row of a taught class makes them an other teacher", async () => {
    const tag = crypto.randomBytes(3).toString("hex");
    const csv = [
      "Name,Email,Role,Classes,Teacher",
      `New Teacher,new.teacher.${tag}@staff.example.org,Teacher,,`,
      `Hal Eight,hal.${tag}@pupils.example.org,Student,N-${tag},new.teacher.${tag}@staff.example.org`,
      `Colleague Too,colleague.${tag}@staff.example.org,Teacher,N-${tag},`,
    ].join("\n");
    const result = await as(school.admin).rosterImport.commit({ files: [file("mixed.csv", `${csv}\n`)] });
    expect(result.classes.create.find((row) => row.name === `N-${tag}`)).toMatchObject({ teacher: "New Teacher", otherTeachers: ["Colleague Too"], notes: [] });
  });

  it("OneRoster: the primary teacher is the main teacher, the other teacher enrollments its other teachers", async () => {
    const tag = crypto.randomBytes(3).toString("hex");
    const users = [
      "sourcedId,status,dateLastModified,enabledUser,orgSourcedIds,role,username,userIds,givenName,familyName,middleName,identifier,email,sms,phone,agentSourcedIds,grades,password",
      `t1-${tag},active,,true,org,teacher,lead.${tag},,Lead,Teacher,,,lead.${tag}@staff.example.org,,,,,`,
      `t2-${tag},active,,true,org,teacher,help.${tag},,Help,Teacher,,,help.${tag}@staff.example.org,,,,,`,
      `s1-${tag},active,,true,org,student,kid.${tag},,Kid,Pupil,,,kid.${tag}@pupils.example.org,,,,10,`,
    ].join("\n");
    const classes = ["sourcedId,status,dateLastModified,title,grades,courseSourcedId,classCode,classType,location,schoolSourcedId,termSourcedIds,subjects", `c1-${tag},active,,Maths,,,OR-${tag},scheduled,,org,,Maths`].join("\n");
    const enrollments = [
      "sourcedId,status,dateLastModified,classSourcedId,schoolSourcedId,userSourcedId,role,primary,beginDate,endDate",
      `e1-${tag},active,,c1-${tag},org,t2-${tag},teacher,false,,`,
      `e2-${tag},active,,c1-${tag},org,t1-${tag},teacher,true,,`,
      `e3-${tag},active,,c1-${tag},org,s1-${tag},student,false,,`,
    ].join("\n");
    const files = [file("users.csv", `${users}\n`), file("classes.csv", `${classes}\n`), file("enrollments.csv", `${enrollments}\n`)];
    const result = await as(school.admin).rosterImport.commit({ files });
    expect(result.classes.create[0]).toMatchObject({ name: `OR-${tag}`, teacher: "Lead Teacher", otherTeachers: ["Help Teacher"] });
    const again = await as(school.admin).rosterImport.preview({ files });
    expect(again.counts).toMatchObject({ create: 0, update: 0, classesUpdate: 0, classesUnchanged: 1 });
  });

  it("generated teacher cells (control characters, huge, odd) are notes or teachers, never a failure", async () => {
    await fc.assert(
      fc.asyncProperty(hostileString, async (cell) => {
        const tag = crypto.randomBytes(3).toString("hex");
        const quoted = `"${cell.replaceAll('"', '""').slice(0, 2000)}"`;
        const csv = `Name,Email,Class,Teacher\nPat Doe,pat.${tag}@pupils.example.org,G-${tag},${quoted}\n`;
        const files = [file("generated.csv", csv)];
        let preview;
        try {
          preview = await as(school.admin).rosterImport.preview({ files });
        } catch (error) {
          // A cell the CSV reader refuses (binary bytes) is the file's 400, with a sentence.
          expect(error).toMatchObject({ code: "BAD_REQUEST" });
          return;
        }
        expect(preview.mappingProblems).toEqual([]);
        const planned = preview.classes.create.find((row) => row.name === `G-${tag}`);
        if (planned) expect(planned.teacher).toBeNull();
      }),
      { seed, numRuns: cases },
    );
  });
});
