import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { asService } from "../server/db/rls";
import { users } from "../server/db/schema";
import { describeRosterImport } from "../server/identity/roster-summary";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings } from "./support/hostile-input";

/**
 * Rosters as schools really export them: OneRoster bundles whose usernames are the e-mail addresses people
 * sign in with (Google, Microsoft), and SIS/Arbor-style CSVs (Legal Forename, Preferred Name, Legal
 * Surname, UPN, Reg Group) with accented names.
 */

const ONEROSTER = path.join(import.meta.dirname, "fixtures/roster/oneroster");
const file = (name: string, text: string) => ({ name, base64: Buffer.from(text).toString("base64") });
const { seed, cases } = fuzzSettings(15);

/** The OneRoster fixture at a fresh domain, each username replaced by the email; `blank` rows lose their email column. */
function emailUsernameBundle(domain: string, blank: readonly string[] = []) {
  const users = fs
    .readFileSync(path.join(ONEROSTER, "users.csv"), "utf8")
    .replace(/riverside\.example\.org/g, domain)
    .split("\n")
    .map((line, index) => {
      if (index === 0 || !line) return line;
      const cells = line.split(",");
      // username is column 6, email column 12 (the fixture quotes only "Grant, Jr", in familyName: shifted by one there)
      const shift = line.includes('"Grant, Jr"') ? 1 : 0;
      const email = cells[12 + shift]!;
      if (email) cells[6] = email;
      if (blank.includes(cells[0]!)) cells[12 + shift] = "";
      return cells.join(",");
    })
    .join("\n");
  return [file("users.csv", users), file("classes.csv", fs.readFileSync(path.join(ONEROSTER, "classes.csv"), "utf8")), file("enrollments.csv", fs.readFileSync(path.join(ONEROSTER, "enrollments.csv"), "utf8"))];
}

const SURNAMES = ["Łukasiewicz", "O’Brien", "Müller", "Nowak", "Ødegaard", "Dubois", "García", "Þórsdóttir", "Weiß", "Zielińska"];
const FORENAMES = ["Zoë", "Siobhán", "Łukasz", "Chloé", "Søren", "José", "Ana-María", "Björn", "Niamh", "Œdipe"];

/** A SIMS-style export of 30 pupils: legal forename, preferred name (blank for every third pupil), legal surname, UPN, reg group. */
function simsExport(domain: string) {
  const rows = Array.from({ length: 30 }, (_, index) => {
    const legal = FORENAMES[index % 10]!;
    const preferred = index % 3 === 0 ? "" : `${legal.slice(0, 3)}y`;
    const surname = SURNAMES[(index * 7) % 10]!;
    const upn = `A${String(100000000000 + index)}`;
    return { legal, preferred, surname, upn, line: [upn, `"${surname}"`, `"${legal}"`, `"${preferred}"`, `${7 + (index % 5)}X`, `Year ${7 + (index % 5)}`, `pupil${index}@${domain}`].join(",") };
  });
  const text = ["UPN,Legal Surname,Legal Forename,Preferred Name,Reg Group,Year,Email", ...rows.map((row) => row.line)].join("\r\n");
  return { rows, file: file("sims-export.csv", `\ufeff${text}\r\n`) };
}

describeOnEachDatabase("rosters as schools export them", (database) => {
  let school: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const schoolUsers = (instituteId: string) => asService(database().db, (tx) => tx.select().from(users).where(eq(users.school_id, instituteId)));

  beforeAll(async () => {
    school = await createSchool(database().db, "Exported");
  });

  describe("SIMS- and Arbor-style exports", () => {
    it("recognises Legal Forename, Preferred Name, Legal Surname, UPN, Reg Group and Year; the preferred name is shown, the legal forename where it is blank", async () => {
      const domain = `sims-${crypto.randomBytes(4).toString("hex")}.example.org`;
      const fresh = await createSchool(database().db, "Simsford");
      const { rows, file: csv } = simsExport(domain);
      const preview = await as(fresh.admin).rosterImport.preview({ files: [csv] });
      expect(preview.mapping).toMatchObject({ firstName: "Preferred Name", legalFirstName: "Legal Forename", lastName: "Legal Surname", sisId: "UPN", yearGroup: "Year", email: "Email", fullName: null, classCodes: ["Reg Group"] });
      expect(preview.mappingProblems).toEqual([]);
      expect(preview.mappingWarnings).toEqual([]);
      expect(preview.counts).toMatchObject({ create: 30, skip: 0 });
      const names = preview.people.create.map((person) => person.name);
      expect(names).toEqual(rows.map((row) => `${row.preferred || row.legal} ${row.surname}`));

      await as(fresh.admin).rosterImport.commit({ files: [csv] });
      const stored = await schoolUsers(fresh.institute.id);
      const first = stored.find((user) => user.sis_id === rows[1]!.upn)!;
      expect(first).toMatchObject({ full_name: `${rows[1]!.preferred} ${rows[1]!.surname}`, display_name: rows[1]!.preferred, year_group: "Year 8" });
      const blankPreferred = stored.find((user) => user.sis_id === rows[0]!.upn)!;
      expect(blankPreferred).toMatchObject({ full_name: `${rows[0]!.legal} ${rows[0]!.surname}`, display_name: rows[0]!.legal });
      expect((await as(fresh.admin).rosterImport.preview({ files: [csv] })).counts).toMatchObject({ create: 0, unchanged: 30 });
    });

    it("recognises the other usual header words, in any column order", async () => {
      const headers: [string, string, string | string[]][] = [
        ["Admission Number", "sisId", "Admission Number"],
        ["Forename", "firstName", "Forename"],
        ["Family Name", "lastName", "Family Name"],
        ["Tutor Group", "classCodes", ["Tutor Group"]],
        ["Year Group", "yearGroup", "Year Group"],
        ["Email Address", "email", "Email Address"],
      ];
      await fc.assert(
        fc.asyncProperty(fc.shuffledSubarray(headers, { minLength: headers.length }), async (shuffled) => {
          const text = `${shuffled.map(([name]) => name).join(",")}\n${shuffled.map(([name]) => (name === "Email Address" ? "x@example.org" : "Zoë")).join(",")}\n`;
          const preview = await as(school.admin).rosterImport.preview({ files: [file("arbor.csv", text)] });
          for (const [, field, expected] of shuffled) expect(preview.mapping![field as "sisId"]).toEqual(expected);
          expect(preview.mappingWarnings).toEqual([]);
        }),
        { seed, numRuns: cases },
      );
      const candidate = await as(school.admin).rosterImport.preview({ files: [file("exam.csv", "Candidate Number,Given Name,Surname,Teaching Group,Tutor Group\n4021,Ada,Lovelace,10A/Ma,10X\n")] });
      expect(candidate.mapping).toMatchObject({ sisId: "Candidate Number", firstName: "Given Name", lastName: "Surname", classCodes: ["Teaching Group"] });
    });

    it("warns when a required part of a name maps to nothing, or to a column empty in every row", async () => {
      const domain = `warn-${crypto.randomBytes(4).toString("hex")}.example.org`;
      const { file: csv } = simsExport(domain);
      const onlySurname = await as(school.admin).rosterImport.preview({ files: [csv], mapping: { lastName: "Legal Surname", email: "Email", classCodes: [] } });
      expect(onlySurname.mappingWarnings).toEqual([
        "First name: no column is chosen, so all 30 people would have a last name only. Choose the column with first names (Forename, Preferred Name) if the file has one.",
      ]);
      expect(describeRosterImport(onlySurname)).toContain("Check the names:\n  First name: no column is chosen");
      const surnameHeader = await as(school.admin).rosterImport.preview({ files: [file("staff.csv", "Surname,Email\nNowak,n@example.org\n")] });
      expect(surnameHeader.mappingWarnings[0]).toMatch(/^First name: no column is chosen, so the 1 person would have a last name only/);
      const onlyFirst = await as(school.admin).rosterImport.preview({ files: [csv], mapping: { firstName: "Legal Forename", email: "Email", classCodes: [] } });
      expect(onlyFirst.mappingWarnings[0]).toMatch(/^Last name: no column is chosen/);
      const blank = await as(school.admin).rosterImport.preview({ files: [file("blank.csv", "Forename,Surname,Email\n,Nowak,n@example.org\n,Weiß,w@example.org\n")] });
      expect(blank.mappingWarnings).toEqual(['First name: the column "Forename" is empty in every row.']);
    });
  });

  describe("OneRoster with e-mail usernames", () => {
    it("imports every person whose username is their e-mail, uses it as the e-mail when the row has none, and matches them again", async () => {
      const domain = `gsuite-${crypto.randomBytes(4).toString("hex")}.example.org`;
      const fresh = await createSchool(database().db, "Workspace");
      const files = emailUsernameBundle(domain, ["usr-stu-02"]);
      const preview = await as(fresh.admin).rosterImport.preview({ files });
      expect(preview.skipped.map((row) => row.reason).filter((reason) => reason.includes("may use only"))).toEqual([]);
      expect(preview.counts).toMatchObject({ create: 9, skip: 3, classesCreate: 2, enrollmentsCreate: 7 });
      expect(preview.people.create.find((person) => person.name === "Rachel Okafor")).toMatchObject({ username: "r.okafor", email: `r.okafor@${domain}` });
      expect(preview.people.create.find((person) => person.name === "Ben Hartley")).toMatchObject({ email: `ben.hartley@${domain}` });

      const applied = await as(fresh.admin).rosterImport.commit({ files });
      expect(applied.counts).toMatchObject({ create: 9, skip: 3 });
      const stored = await schoolUsers(fresh.institute.id);
      expect(stored.find((user) => user.full_name === "Ben Hartley")).toMatchObject({ email: `ben.hartley@${domain}`, username: "ben.hartley" });
      expect((await as(fresh.admin).rosterImport.preview({ files })).counts).toMatchObject({ create: 0, update: 0, unchanged: 9 });
    });

    it("accepts any e-mail-shaped username in a CSV without an email column", async () => {
      await fc.assert(
        fc.asyncProperty(fc.emailAddress({ size: "small" }), async (address) => {
          const unique = `${crypto.randomBytes(3).toString("hex")}.${address}`;
          const text = `id,name,username\nX1,"Ada Lovelace","${unique.replaceAll('"', '""')}"\n`;
          const preview = await as(school.admin).rosterImport.preview({ files: [file("pupils.csv", text)] });
          expect(preview.skipped).toEqual([]);
          expect(preview.people.create).toEqual([expect.objectContaining({ name: "Ada Lovelace", email: unique.toLowerCase() })]);
        }),
        { seed, numRuns: cases },
      );
    });

    it("still refuses a username that is neither a username nor an e-mail, saying both", async () => {
      const preview = await as(school.admin).rosterImport.preview({ files: [file("pupils.csv", "id,name,username\nX1,Ada Lovelace,ada lovelace\n")] });
      expect(preview.skipped).toEqual([{ row: "row 2", name: "Ada Lovelace", reason: 'username "ada lovelace" may use only letters, digits, ".", "_" and "-", or be an email address' }]);
    });
  });
});
