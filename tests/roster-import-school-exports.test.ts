import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { asService } from "../server/db/rls";
import { users } from "../server/db/schema";
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

describeOnEachDatabase("rosters as schools export them", (database) => {
  let school: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const schoolUsers = (instituteId: string) => asService(database().db, (tx) => tx.select().from(users).where(eq(users.school_id, instituteId)));

  beforeAll(async () => {
    school = await createSchool(database().db, "Exported");
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
