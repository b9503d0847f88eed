import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseCsvTable } from "../server/identity/roster-csv";
import { fuzzSettings } from "./support/hostile-input";

/**
 * A roster's CSV is decoded and parsed a slice at a time, yielding to the event loop between slices, so
 * one school's large import never holds every other request (server/identity/roster-csv.ts). The slices
 * must change nothing of what is read: quoted cells holding delimiters, quotes and line breaks, and
 * multi-byte characters, wherever the slices fall.
 */

const quote = (cell: string) => (/[",\n\r]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);
const encoder = new TextEncoder();

describe("a roster CSV read a slice at a time", () => {
  it("reads every cell as written, across slice boundaries (generated files over 300 kB)", async () => {
    const cell = fc.string({ unit: fc.constantFrom("a", "é", "Ł", "😀", ",", '"', "\n", " ", "x", "1"), maxLength: 40 }).map((text) => text.trim());
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(cell, cell, cell), { minLength: 1, maxLength: 30 }), async (rows) => {
        const kept = rows.filter((row) => row.some((value) => value !== ""));
        fc.pre(kept.length > 0);
        // The generated rows, each with a filler of its own length, repeated until the file spans several
        // slices of each kind: the slices' edges fall at every kind of place in a row.
        const body: string[][] = [];
        for (let index = 0; body.length * 200 < 300_000; index++) {
          const row = kept[index % kept.length]!;
          body.push([...row, "n".repeat(150 + (index % 97))]);
        }
        const text = ["Name,Email,Class,Notes", ...body.map((row) => row.map(quote).join(","))].join("\n");
        const table = await parseCsvTable(encoder.encode(text), "pupils.csv", body.length);
        expect(table.columns).toEqual(["Name", "Email", "Class", "Notes"]);
        expect(table.rows.map((row) => [row.values.Name, row.values.Email, row.values.Class, row.values.Notes])).toEqual(body);
      }),
      fuzzSettings(8),
    );
  }, 120_000);

  it("lets other work run while a 2 MB file is parsed: the event loop turns between slices", async () => {
    const lines = ["First name,Last name,Email,Year,Role,Classes"];
    for (let index = 0; index < 24_000; index++) lines.push(`Pupil${index},Surname-${"x".repeat(40)},pupil${index}@school.example.org,${7 + (index % 5)},Student,C${index % 90}`);
    const bytes = encoder.encode(lines.join("\n"));
    expect(bytes.byteLength).toBeGreaterThan(2_000_000);
    let turns = 0;
    let parsing = true;
    const turn = () => {
      turns += 1;
      if (parsing) setImmediate(turn);
    };
    setImmediate(turn);
    const table = await parseCsvTable(bytes, "pupils.csv", 24_000);
    parsing = false;
    expect(table.rows).toHaveLength(24_000);
    // At least one turn per slice of bytes decoded (256 kB) and per slice of text parsed (64 k characters).
    expect(turns).toBeGreaterThan(bytes.byteLength / (256 * 1024) + bytes.byteLength / (64 * 1024));
  }, 120_000);

  it("stops reading a file far over the row limit, and says so", async () => {
    const lines = ["Name"];
    for (let index = 0; index < 200_000; index++) lines.push(`Pupil ${index}`);
    await expect(parseCsvTable(encoder.encode(lines.join("\n")), "pupils.csv", 1000)).rejects.toMatchObject({ status: 413, message: "pupils.csv has more than 1,000 rows: split it into smaller files" });
  });
});
