import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as listPeopleRoute } from "../app/api/school/people/route";
import { GET as listSchoolStudentsRoute } from "../app/database/timetable/classes/school/students/route";
import { foldName } from "../lib/text/names";
import { asService } from "../server/db/rls";
import { createUser } from "../server/identity/users";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileString } from "./support/hostile-input";

/**
 * Searches and lists of people on the server: accents, case and apostrophe style aside (People, REST and
 * tRPC), sorted by surname with a collation (People, a class's students), the school's students by full
 * name with a collation (the contract's order), and nothing of another school.
 */

const { seed, cases } = fuzzSettings(25);
const NAMES = ["Zoë Łukasiewicz", "Siobhán O’Brien", "Łukasz Nowak", "Zoe Adams", "Ada Lovelace", "Søren Weiß", "Anna Zielińska"];

describeOnEachDatabase("searching and sorting names", (database) => {
  let school: School;
  let otherSchool: School;
  const ids = new Map<string, string>();
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const search = async (text: string, caller = () => as(school.admin)) => (await caller().people.list({ search: text, role: "student" })).people.map((person) => person.full_name);
  let classId: string;

  beforeAll(async () => {
    school = await createSchool(database().db, "Diacritic");
    otherSchool = await createSchool(database().db, "Elsewhere");
    await asService(database().db, async (tx) => {
      for (const [index, fullName] of NAMES.entries()) {
        const user = await createUser(tx, { email: `pupil${index}.${school.institute.id.slice(0, 8)}@example.org`, fullName, instituteId: school.institute.id, role: "student" });
        ids.set(fullName, user.id);
      }
    });
    classId = (await as(school.admin).classes.create({ name: "7Z", teacherId: school.teacher.id })).id;
    for (const id of ids.values()) await as(school.admin).classes.addStudent({ classId, studentId: id });
  });

  describe("People", () => {
    it("finds accent, case and apostrophe variants: zoe finds Zoë, o'brien finds O’Brien, lukasz finds Łukasz", async () => {
      expect(await search("zoe")).toEqual(["Zoe Adams", "Zoë Łukasiewicz"]);
      expect(await search("o'brien")).toEqual(["Siobhán O’Brien"]);
      expect(await search("O‘BRIEN")).toEqual(["Siobhán O’Brien"]);
      expect(await search("lukasz")).toEqual(["Łukasz Nowak"]);
      expect(await search("LUKASIEWICZ")).toEqual(["Zoë Łukasiewicz"]);
      expect(await search("soren weiss")).toEqual(["Søren Weiß"]);
      expect(await search("zielinska")).toEqual(["Anna Zielińska"]);
    });

    it("lists by surname with a collation (Łukasiewicz between Lovelace and Nowak), pages that order", async () => {
      const all = (await as(school.admin).people.list({ role: "student", limit: 200 })).people.map((person) => person.full_name);
      expect(all.filter((name) => NAMES.includes(name))).toEqual(["Zoe Adams", "Ada Lovelace", "Zoë Łukasiewicz", "Łukasz Nowak", "Siobhán O’Brien", "Søren Weiß", "Anna Zielińska"]);
      const first = await as(school.admin).people.list({ role: "student", limit: 4 });
      const rest = await as(school.admin).people.list({ role: "student", limit: 200, offset: 4 });
      expect([...first.people, ...rest.people].map((person) => person.full_name)).toEqual(all);
      expect(first.total).toBe(all.length);
    });

    it("finds the same over REST", async () => {
      const response = await listPeopleRoute(new Request(`http://localhost/api/school/people?search=${encodeURIComponent("o'brien")}`, { headers: { authorization: `Bearer ${school.admin.token}` } }), {
        params: Promise.resolve({}),
      });
      expect(response.status).toBe(200);
      expect((await response.json()).people.map((person: { full_name: string }) => person.full_name)).toEqual(["Siobhán O’Brien"]);
    });

    it("finds nothing of another school's, whatever is searched", async () => {
      expect(await search("zoe", () => as(otherSchool.admin))).toEqual([]);
      expect(await search("lukasz", () => as(otherSchool.admin))).toEqual([]);
    });

    it("answers a page for any search text, never an error, and every name found contains the folded search", async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(hostileString, fc.constantFrom(...NAMES), fc.constantFrom("ł", "’", "ß", "%", "_", "\\")), async (text) => {
          const result = await as(school.admin)
            .people.list({ search: text.slice(0, 200) })
            .catch((error: { code?: string }) => ({ error }));
          if ("error" in result) {
            expect(result.error.code).toBe("BAD_REQUEST");
            return;
          }
          const folded = foldName(text.slice(0, 200));
          for (const person of result.people) {
            expect(person.id).not.toBe(otherSchool.admin.id);
            expect([person.full_name, person.email, person.username].some((value) => foldName(value).includes(folded))).toBe(true);
          }
          if (NAMES.includes(text)) expect(result.people.map((person) => person.full_name)).toContain(text);
        }),
        { seed, numRuns: cases },
      );
    });
  });

  describe("class lists", () => {
    it("lists a class's students by surname", async () => {
      const { students } = await as(school.teacher).classes.students({ classId });
      expect(students.map((student) => student.full_name)).toEqual(["Zoe Adams", "Ada Lovelace", "Zoë Łukasiewicz", "Łukasz Nowak", "Siobhán O’Brien", "Søren Weiß", "Anna Zielińska"]);
    });

    it("lists the school's students by full name with a collation: Łukasz before Zoë", async () => {
      const response = await listSchoolStudentsRoute(new Request("http://localhost/database/timetable/classes/school/students", { headers: { authorization: `Bearer ${school.teacher.token}` } }));
      const names: string[] = (await response.json()).students.map((student: { full_name: string }) => student.full_name);
      const ours = names.filter((name) => NAMES.includes(name));
      expect(ours).toEqual(["Ada Lovelace", "Anna Zielińska", "Łukasz Nowak", "Siobhán O’Brien", "Søren Weiß", "Zoe Adams", "Zoë Łukasiewicz"]);
    });
  });
});
