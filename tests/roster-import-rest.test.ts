import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { POST as rosterImportRoute } from "../app/api/school/roster-imports/route";
import { asService } from "../server/db/rls";
import { users } from "../server/db/schema";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileString } from "./support/hostile-input";

const FIXTURES = path.join(import.meta.dirname, "fixtures/roster");

interface Call {
  token?: string;
  query?: string;
  contentType?: string;
  body?: BodyInit;
}

const post = ({ token, query = "", contentType = "text/csv", body = "" }: Call) =>
  rosterImportRoute(
    new Request(`http://localhost/api/school/roster-imports${query}`, {
      method: "POST",
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "content-type": contentType },
      body,
    }),
  );

describeOnEachDatabase("POST /api/school/roster-imports", (database) => {
  let school: School;
  const zip = () => new Uint8Array(fs.readFileSync(path.join(FIXTURES, "oneroster-riverside.zip")));

  beforeAll(async () => {
    school = await createSchool(database().db, "RestRoster");
  });

  it("answers 401 without a token and 403 to a teacher or a student, before anything is written", async () => {
    expect((await post({ body: "name,email\nA B,a@b.example.org\n" })).status).toBe(401);
    for (const person of [school.teacher, school.student]) {
      const response = await post({ token: person.token, body: "name,email\nA B,ab@rest.example.org\n" });
      expect(response.status).toBe(403);
      expect((await response.json()).detail).toBe("Only a school admin can import people into the school");
    }
  });

  it("previews with dry_run=true (200), then imports the zip (201), and the same zip again changes nothing", async () => {
    const preview = await post({ token: school.admin.token, query: "?dry_run=true", contentType: "application/zip", body: zip() });
    expect(preview.status).toBe(200);
    expect((await preview.json()).counts).toMatchObject({ create: 9, skip: 3, classesCreate: 2, enrollmentsCreate: 7 });
    expect(await asService(database().db, (tx) => tx.select().from(users).where(eq(users.school_id, school.institute.id)))).toHaveLength(6);

    const applied = await post({ token: school.admin.token, contentType: "application/zip", body: zip() });
    expect(applied.status).toBe(201);
    expect(await applied.json()).toMatchObject({ applied: true, counts: { create: 9 } });
    const again = await post({ token: school.admin.token, query: "?dry_run=true", contentType: "application/zip", body: zip() });
    expect((await again.json()).counts).toMatchObject({ create: 0, update: 0, unchanged: 9, enrollmentsCreate: 0 });
  });

  it("takes the mapping as JSON in the query, and names what is wrong with it", async () => {
    const csv = "Pupil,Contact\nRita Rest,rita@rest.example.org\n";
    const mapping = encodeURIComponent(JSON.stringify({ fullName: "Pupil", email: "Contact" }));
    const preview = await post({ token: school.admin.token, query: `?dry_run=1&mapping=${mapping}&filename=pupils.csv`, body: csv });
    expect((await preview.json()).people.create).toEqual([expect.objectContaining({ name: "Rita Rest", email: "rita@rest.example.org" })]);

    const unusable = await post({ token: school.admin.token, body: csv });
    expect(unusable.status).toBe(400);
    expect((await unusable.json()).detail).toBe("Choose the column with names (or first and last names); Choose the column with email addresses or usernames");
    const notJson = await post({ token: school.admin.token, query: "?mapping=%7Bnope", body: csv });
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).detail).toMatch(/^mapping must be a JSON object/);
    const wrongShape = await post({ token: school.admin.token, query: `?mapping=${encodeURIComponent('{"classCodes":"Sets"}')}`, body: csv });
    expect((await wrongShape.json()).detail).toMatch(/^mapping\.classCodes: /);
  });

  it("refuses what is not a roster with 415, 413 or a 400 that names the file", async () => {
    const pdf = await post({ token: school.admin.token, contentType: "application/pdf", body: "%PDF-1.7" });
    expect(pdf.status).toBe(415);
    const empty = await post({ token: school.admin.token, query: "?filename=pupils.csv", body: "" });
    expect(empty.status).toBe(400);
    expect((await empty.json()).detail).toBe("pupils.csv is empty: it needs a header row and a row per person");
    const huge = await post({ token: school.admin.token, body: `name,email\n${"x".repeat(6 * 1024 * 1024)},a@b.example.org\n` });
    expect(huge.status).toBe(413);
    expect((await huge.json()).detail).toBe("The import is larger than 5 MB: split it into smaller files");
  });

  it("stores a spreadsheet formula as plain text", async () => {
    const formula = "=cmd|' /C calc'!A0";
    const csv = `name,email\n"${formula}",formula@rest.example.org\n`;
    expect((await post({ token: school.admin.token, body: csv })).status).toBe(201);
    const [stored] = await asService(database().db, (tx) => tx.select().from(users).where(eq(users.email, "formula@rest.example.org")));
    expect(stored?.full_name).toBe(formula);
  });

  it("never answers 5xx to hostile files: random bytes, huge fields, control characters (generated)", async () => {
    const { seed, cases } = fuzzSettings(database().kind === "pglite" ? 60 : 25);
    const hostileFile = fc.oneof(
      fc.uint8Array({ minLength: 0, maxLength: 2000 }).map((bytes) => ({ contentType: "text/csv", body: bytes })),
      fc.uint8Array({ minLength: 0, maxLength: 200 }).map((bytes) => ({ contentType: "application/zip", body: new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...bytes]) })),
      fc.tuple(hostileString, hostileString, hostileString).map(([name, email, classes]) => ({
        contentType: "text/csv",
        body: `name,email,username,year,classes,role\n"${name.replaceAll('"', '""')}","${email.replaceAll('"', '""')}",u${name.length},${name.slice(0, 300)},"${classes.replaceAll('"', '""')}",${email.slice(0, 40)}\n`,
      })),
    );
    const failures: string[] = [];
    const before = await asService(database().db, (tx) => tx.select({ id: users.id }).from(users).where(eq(users.school_id, school.institute.id)));
    for (const file of fc.sample(hostileFile, { seed, numRuns: cases })) {
      const response = await post({ token: school.admin.token, query: "?dry_run=true", ...file });
      const text = await response.text();
      if (response.status >= 500) failures.push(`${response.status}: ${text.slice(0, 200)}`);
      else if (response.status >= 400 && !(JSON.parse(text) as { detail?: string }).detail) failures.push(`${response.status} without detail`);
    }
    expect(failures, `FUZZ_SEED=${seed}`).toEqual([]);
    const after = await asService(database().db, (tx) => tx.select({ id: users.id }).from(users).where(eq(users.school_id, school.institute.id)));
    expect(after).toHaveLength(before.length); // dry runs wrote nothing
  });
});
