import crypto from "node:crypto";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { asUser } from "../server/db/rls";
import { rosterMappings } from "../server/db/schema";
import { guessMapping } from "../server/identity/roster-mapping";
import { headerKey, mappingForColumns } from "../server/identity/roster-memory";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings } from "./support/hostile-input";

/**
 * Re-importing the same file keeps the mapping (issue 33, item 2): the columns a school admin chose are
 * remembered per school and per header set, proposed for the next file with that header, and the same
 * file imported again with them changes nothing.
 */

const file = (name: string, text: string) => ({ name, base64: Buffer.from(text).toString("base64") });
const { seed, cases } = fuzzSettings(12);

/** An export where the guess picks "Known As" for the first name (a preferred name) but the school wants the legal forename. */
function exportOf(domain: string, header = "Forename,Known As,Surname,Email,Sets") {
  const rows = [
    ["Alexander", "Sasha", "Petrov", `sasha.petrov@${domain}`, "10A"],
    ["Margaret", "Peggy", "Olsen", `peggy.olsen@${domain}`, "10A"],
    ["Robert", "", "Smith", `robert.smith@${domain}`, "10B"],
  ];
  return file("pupils.csv", [header, ...rows.map((row) => row.join(","))].join("\n") + "\n");
}

describeOnEachDatabase("remembered roster mappings", (database) => {
  let school: School;
  let other: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  beforeAll(async () => {
    school = await createSchool(database().db, "Remembering");
    other = await createSchool(database().db, "Forgetting");
  });

  it("proposes the mapping chosen on the last import of the same header, and the same file again changes nothing", async () => {
    const domain = `memory-${crypto.randomBytes(3).toString("hex")}.example.org`;
    const files = [exportOf(domain)];
    const first = await as(school.admin).rosterImport.preview({ files });
    expect(first.mapping?.firstName).toBe("Known As");
    expect(first.mappingRemembered).toBeNull();

    const chosen = { ...first.mapping!, firstName: "Forename", legalFirstName: null };
    const applied = await as(school.admin).rosterImport.commit({ files, mapping: chosen });
    expect(applied.counts.create).toBe(3);
    expect(applied.people.create.map((person) => person.name)).toContain("Alexander Petrov");

    // The same file again, with no mapping sent: the remembered one, and nothing to do.
    const again = await as(school.admin).rosterImport.preview({ files });
    expect(again.mapping).toMatchObject({ firstName: "Forename", lastName: "Surname", email: "Email", classCodes: ["Sets"] });
    expect(again.mappingRemembered?.savedAt).toBeInstanceOf(Date);
    expect(again.counts).toMatchObject({ create: 0, update: 0, unchanged: 3, skip: 0, classesCreate: 0, classesUpdate: 0, enrollmentsCreate: 0 });

    // The same header with its columns moved and in another case is the same header set.
    const moved = [exportOf(domain, "email,SURNAME,known as,FORENAME,sets")];
    const reordered = await as(school.admin).rosterImport.preview({
      files: [file("pupils.csv", Buffer.from(moved[0]!.base64, "base64").toString().replace(/^(.*)\n/, "email,SURNAME,known as,FORENAME,sets\n"))],
    });
    expect(reordered.mapping).toMatchObject({ firstName: "FORENAME", email: "email", lastName: "SURNAME", classCodes: ["sets"] });
    expect(reordered.mappingRemembered).not.toBeNull();

    // The mapping sent back unchanged (the preview screen's Import) is still "as you chose it".
    const sentBack = await as(school.admin).rosterImport.preview({ files, mapping: again.mapping });
    expect(sentBack.mappingRemembered?.savedAt).toEqual(again.mappingRemembered?.savedAt);
    // Another mapping is not.
    expect((await as(school.admin).rosterImport.preview({ files, mapping: { ...again.mapping!, firstName: "Known As" } })).mappingRemembered).toBeNull();
  });

  it("keeps the date of the choice when the same mapping is applied again, and replaces it with a new choice", async () => {
    const domain = `dates-${crypto.randomBytes(3).toString("hex")}.example.org`;
    const header = "Forename,Known As,Surname,Email,Sets,Notes";
    const files = [exportOf(domain, header)];
    const guessed = (await as(school.admin).rosterImport.preview({ files })).mapping!;
    await as(school.admin).rosterImport.commit({ files, mapping: { ...guessed, firstName: "Forename" } });
    const saved = (await as(school.admin).rosterImport.preview({ files })).mappingRemembered!.savedAt;
    await as(school.admin).rosterImport.commit({ files, mapping: { ...guessed, firstName: "Forename" } });
    expect((await as(school.admin).rosterImport.preview({ files })).mappingRemembered!.savedAt).toEqual(saved);
    await as(school.admin).rosterImport.commit({ files, mapping: { ...guessed, firstName: "Known As" } });
    const replaced = await as(school.admin).rosterImport.preview({ files });
    expect(replaced.mapping?.firstName).toBe("Known As");
    expect(replaced.mappingRemembered!.savedAt.getTime()).toBeGreaterThanOrEqual(saved.getTime());
  });

  it("is the school's own: another school's admin with the same header gets the guess; staff who are not admins read none", async () => {
    const domain = `theirs-${crypto.randomBytes(3).toString("hex")}.example.org`;
    const files = [exportOf(domain)];
    const theirs = await as(other.admin).rosterImport.preview({ files });
    expect(theirs.mapping?.firstName).toBe("Known As");
    expect(theirs.mappingRemembered).toBeNull();
    for (const person of [school.teacher, school.head, school.student]) {
      const rows = await asUser(database().db, person.id, (tx) => tx.select().from(rosterMappings));
      expect(rows, person.full_name).toEqual([]);
    }
    expect((await asUser(database().db, school.admin.id, (tx) => tx.select().from(rosterMappings))).length).toBeGreaterThan(0);
  });

  it("remembers the mapping of a UTF-16 file whose unused column's header holds a NUL", async () => {
    const domain = `utf16-${crypto.randomBytes(3).toString("hex")}.example.org`;
    const text = `Name,Email,Odd\u0000Column\nPat Doe,pat@${domain},x\n`;
    const files = [{ name: "utf16.csv", base64: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]).toString("base64") }];
    const applied = await as(school.admin).rosterImport.commit({ files, mapping: { fullName: "Name", email: "Email", classCodes: [] } });
    expect(applied.counts.create).toBe(1);
    const again = await as(school.admin).rosterImport.preview({ files });
    expect(again.mappingRemembered).not.toBeNull();
    expect(again.counts).toMatchObject({ create: 0, update: 0, unchanged: 1 });
  });

  it("remembers mappings of generated headers (quotes, commas, accents, odd spaces) and proposes them again", async () => {
    const headerName = fc
      .string({ unit: fc.constantFrom("a", "B", "é", " ", ",", '"', "'", ";", "\u2028", "\u202e", "😀", "-", "7"), minLength: 1, maxLength: 24 })
      .filter((name) => name.trim().length > 0);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(headerName, { minLength: 3, maxLength: 6, selector: (name) => name.trim().toLowerCase().replace(/\s+/g, " ") }), async (names) => {
        const domain = `gen-${crypto.randomBytes(4).toString("hex")}.example.org`;
        const quote = (cell: string) => `"${cell.replaceAll('"', '""')}"`;
        const csv = [names.map(quote).join(","), names.map((_, index) => (index === 0 ? "Pat Doe" : index === 1 ? `pat@${domain}` : `x${index}`)).join(",")].join("\n");
        const files = [file("generated.csv", `${csv}\n`)];
        const first = await as(school.admin).rosterImport.preview({ files });
        const columns = first.columns.map((column) => column.name);
        const mapping = { fullName: columns[0]!, email: columns[1]!, yearGroup: columns[2]!, classCodes: [] };
        const applied = await as(school.admin).rosterImport.commit({ files, mapping });
        expect(applied.applied).toBe(true);
        const again = await as(school.admin).rosterImport.preview({ files });
        expect(again.mappingRemembered).not.toBeNull();
        expect(again.mapping).toMatchObject(mapping);
        expect(again.counts).toMatchObject({ create: 0, update: 0 });
      }),
      { seed, numRuns: database().kind === "pglite" ? cases : Math.ceil(cases / 2) },
    );
  });
});

describe("header sets", () => {
  const column = fc.string({ minLength: 1, maxLength: 30 }).filter((name) => name.trim().length > 0);

  it("a header set is the same whatever the columns' order, case and spacing; a different set is another key", () => {
    fc.assert(
      fc.property(fc.uniqueArray(column, { minLength: 1, maxLength: 12, selector: (name) => name.trim().toLowerCase().replace(/\s+/g, " ") }), fc.nat(), (columns, shift) => {
        const moved = [...columns.slice(shift % columns.length), ...columns.slice(0, shift % columns.length)].map((name) => ` ${name.toUpperCase()} `);
        const folds = moved.every((name, index) => name.trim().toLowerCase() === columns[(index + (shift % columns.length)) % columns.length]!.trim().toLowerCase());
        if (folds) expect(headerKey(moved)).toBe(headerKey(columns));
        expect(headerKey([...columns, `${columns.join("")}+another`])).not.toBe(headerKey(columns));
      }),
      { seed: 20261205, numRuns: 300 },
    );
  });

  it("a remembered mapping is read in the file's own spelling of the columns, or not at all when a column is missing", () => {
    const columns = ["Forename", "Known As", "Surname", "Email", "Sets"];
    const saved = { ...guessMapping(columns), firstName: "Forename" };
    expect(mappingForColumns(saved, ["EMAIL", "sets", "surname", "known  as", "forename"])).toMatchObject({ firstName: "forename", email: "EMAIL", classCodes: ["sets"] });
    expect(mappingForColumns(guessMapping(columns), ["Forename", "Surname", "Email", "Sets"])).toBeNull();
    expect(mappingForColumns({ firstName: 7 }, columns)).toBeNull();
  });
});
