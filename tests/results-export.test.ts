import crypto from "node:crypto";
import { parse } from "csv-parse/sync";
import ExcelJS from "exceljs";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as csvRoute } from "../app/api/exam/batches/[batch_id]/csv/route";
import { GET as exportCsvRoute } from "../app/api/exam/batches/[batch_id]/export/csv/route";
import { GET as exportXlsxRoute } from "../app/api/exam/batches/[batch_id]/export/xlsx/route";
import { GET as queueRoute } from "../app/api/exam/batches/[batch_id]/queue/route";
import { PATCH as patchBatchRoute } from "../app/api/exam/batches/[batch_id]/route";
import { POST as createRoute } from "../app/api/exam/batches/route";
import { PUT as markRoute } from "../app/api/exam/marks/[mark_id]/route";
import { PUT as markAbsentRoute } from "../app/api/exam/submissions/[submission_id]/absence/route";
import { PUT as putTemplate } from "../app/api/exam/templates/[template_id]/route";
import { POST as postTemplate } from "../app/api/exam/templates/route";
import { asService } from "../server/db/rls";
import { eq } from "drizzle-orm";
import { examSubmissions, users } from "../server/db/schema";
import { createClass } from "../server/classroom/classes";
import { enrollStudent } from "../server/classroom/enrollments";
import { createUser } from "../server/identity/users";
import { type ResultsExport, renderExportCsv, renderExportXlsx, splitName } from "../server/exam/results-export";
import { describeOnEachDatabase } from "./support/database";
import { fuzzSettings, hostileString } from "./support/hostile-input";
import { callRest, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

/**
 * The results a school takes away (issue 33, item 7): the contract's CSV stays byte for byte what it
 * was, and the teacher's export (CSV with a byte-order mark, and .xlsx) is in the school's shape.
 */

interface Pupil {
  id: string;
  full_name: string;
  sis_id: string | null;
}

/** A class of pupils as a roster import leaves them: full name "first last", display name the first name, an SIS id. */
async function createNamedClass(school: School, database: () => { db: Parameters<typeof asService>[0] }, className: string, pupils: { first: string; last: string; sis: string | null }[]) {
  const tag = crypto.randomBytes(4).toString("hex");
  return asService(database().db, async (tx) => {
    const created = await createClass(tx, { instituteId: school.institute.id, name: className, teacherId: school.teacher.id });
    const students: Pupil[] = [];
    for (const [index, pupil] of pupils.entries()) {
      const user = await createUser(tx, {
        email: `p${index}.${tag}@example.org`,
        fullName: `${pupil.first} ${pupil.last}`,
        displayName: pupil.first,
        instituteId: school.institute.id,
        role: "student",
      });
      if (pupil.sis) await tx.update(users).set({ sis_id: `${pupil.sis}-${tag}` }).where(eq(users.id, user.id));
      await enrollStudent(tx, { classId: created.id, studentId: user.id });
      students.push({ id: user.id, full_name: user.full_name, sis_id: pupil.sis ? `${pupil.sis}-${tag}` : null });
    }
    return { class: created, students };
  });
}

describeOnEachDatabase("results export", (database) => {
  let school: School;
  let otherSchool: School;
  let canvas: ReturnType<typeof sampleCanvas>;
  let templateId: string;
  let roster: Awaited<ReturnType<typeof createNamedClass>>;

  const mark = (submissionId: string, questionId: string, awarded: number | null, comment: string | null = null) =>
    callRest(markRoute, {
      method: "PUT",
      token: school.teacher.token,
      body: { submission_id: submissionId, question_id: questionId, awarded_marks: awarded, confirmed: true, comment },
      params: { mark_id: crypto.randomUUID() },
    });

  /**
   * A batch of the class with one pupil in each state: Chloé marked in full (with comments), Mateusz part-marked,
   * Zoë scanned but not marked, Ana María marked absent, Ben with no scan yet, and a scan nobody is named on.
   */
  async function markedBatch(options: { anonymous?: boolean } = {}) {
    const created = await callRest(createRoute, { method: "POST", token: school.teacher.token, body: { template_id: templateId, class_id: roster.class.id, title: "10A Maths mock" } });
    expect(created.status).toBe(201);
    const batch = await created.json();
    const queue = await (await callRest(queueRoute, { token: school.teacher.token, params: { batch_id: batch.id } })).json();
    const slot = (pupil: Pupil) => (queue.submissions as { id: string; student_id: string; script_number: number }[]).find((s) => s.student_id === pupil.id)!;
    const [chloe, mateusz, zoe, ana] = roster.students;
    expect((await mark(slot(chloe!).id, canvas.ids.q1a, 3, "Clear working; well done")).status).toBe(200);
    expect((await mark(slot(chloe!).id, canvas.ids.q1b, 1.5)).status).toBe(200);
    expect((await mark(slot(chloe!).id, canvas.ids.q2, 4, "Check units, e.g. \"cm\"")).status).toBe(200);
    expect((await mark(slot(mateusz!).id, canvas.ids.q1a, 2)).status).toBe(200);
    await asService(database().db, (tx) => tx.update(examSubmissions).set({ status: "matched" }).where(eq(examSubmissions.id, slot(zoe!).id)));
    expect((await callRest(markAbsentRoute, { method: "PUT", token: school.teacher.token, params: { submission_id: slot(ana!).id } })).status).toBe(200);
    const [unmatched] = await asService(database().db, (tx) =>
      tx.insert(examSubmissions).values({ batch_id: batch.id, student_id: null, student_name: null, status: "unmatched" }).returning(),
    );
    if (options.anonymous) {
      const patched = await callRest(patchBatchRoute, { method: "PATCH", token: school.teacher.token, body: { anonymous: true }, params: { batch_id: batch.id } });
      expect(patched.status).toBe(200);
    }
    return { batch, slot, unmatched: unmatched! };
  }

  beforeAll(async () => {
    school = await createSchool(database().db, "Export");
    otherSchool = await createSchool(database().db, "Elsewhere");
    const response = await callRest(postTemplate, { method: "POST", token: school.teacher.token, body: { title: "Mock", page_count: 4 } });
    templateId = (await response.json()).id;
    canvas = sampleCanvas();
    expect((await callRest(putTemplate, { method: "PUT", token: school.teacher.token, body: canvas, params: { template_id: templateId } })).status).toBe(200);
    roster = await createNamedClass(school, database, "10A/Ma1", [
      { first: "Chloé", last: "Dubois", sis: "UPN-A1" },
      { first: "Mateusz", last: "Łukasik", sis: "UPN-B2" },
      { first: "Zoë", last: "O’Brien", sis: null },
      { first: "Ana María", last: "de la Cruz", sis: "UPN-D4" },
      { first: "Ben", last: "Adams", sis: "UPN-E5" },
    ]);
  });

  describe("the contract's CSV", () => {
    it("is byte for byte what it was before the teacher's export: header, statuses, totals and names", async () => {
      const { batch, slot, unmatched } = await markedBatch();
      const [chloe, mateusz, zoe, ana, ben] = roster.students;
      const response = await callRest(csvRoute, { token: school.teacher.token, params: { batch_id: batch.id } });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      expect(response.headers.get("content-disposition")).toBe(`attachment; filename="batch-${batch.id}.csv"; filename*=UTF-8''batch-${batch.id}.csv`);
      // The results change as marking goes on: the download is never kept (exam.batches.resultsCsv's `respond`).
      expect(response.headers.get("cache-control")).toBe("no-store");
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect([...bytes.slice(0, 3)]).not.toEqual([0xef, 0xbb, 0xbf]);
      expect(new TextDecoder().decode(bytes)).toBe(
        [
          "student_name,student_id,status,1a,1b,2,total",
          `Ana María de la Cruz,${ana!.id},Absent,,,,`,
          `Ben Adams,${ben!.id},No scan yet,,,,`,
          `Chloé Dubois,${chloe!.id},Marked,3,1.5,4,8.5`,
          `Mateusz Łukasik,${mateusz!.id},Being marked (1 of 3),2,,,2`,
          `Zoë O’Brien,${zoe!.id},Not marked,,,,0`,
          ",,Needs a student,,,,0",
          "",
        ].join("\r\n"),
      );
      expect(slot(chloe!).id).not.toBe(unmatched.id);
    });

    it("is byte for byte what it was for an anonymous batch: script labels in script order, no ids", async () => {
      const { batch, slot, unmatched } = await markedBatch({ anonymous: true });
      const [chloe, mateusz, zoe, ana, ben] = roster.students;
      const rows = [
        [slot(ana!).script_number, "Absent,,,,"],
        [slot(ben!).script_number, "No scan yet,,,,"],
        [slot(chloe!).script_number, "Marked,3,1.5,4,8.5"],
        [slot(mateusz!).script_number, "Being marked (1 of 3),2,,,2"],
        [slot(zoe!).script_number, "Not marked,,,,0"],
        [unmatched.script_number, "Needs a student,,,,0"],
      ] as const;
      const expected = [...rows].sort((a, b) => a[0] - b[0]).map(([number, rest]) => `Script ${number},,${rest}`);
      const response = await callRest(csvRoute, { token: school.teacher.token, params: { batch_id: batch.id } });
      expect(await response.text()).toBe(["student_name,student_id,status,1a,1b,2,total", ...expected, ""].join("\r\n"));
      const revealed = await callRest(csvRoute, { token: school.teacher.token, params: { batch_id: batch.id }, path: `/api/exam/batches/${batch.id}/csv?reveal_names=true` });
      expect((await revealed.text()).split("\r\n")[1]).toBe(`Ana María de la Cruz,${ana!.id},Absent,,,,`);
      expect((await callRest(csvRoute, { token: otherSchool.teacher.token, params: { batch_id: batch.id } })).status).toBe(404);
    });
  });
  const exportCall = (route: typeof exportCsvRoute, token: string, batchId: string, query = "") =>
    callRest(route, { token, params: { batch_id: batchId }, path: `/api/exam/batches/${batchId}/export/${route === exportCsvRoute ? "csv" : "xlsx"}${query}` });

  /** The rows the teacher's export must hold for markedBatch(), names shown, sorted by surname. */
  const expectedRows = () => {
    const [chloe, mateusz, zoe, ana, ben] = roster.students;
    const row = (pupil: Pupil | null, surname: string, first: string, state: string, rest: string[]) => [pupil?.sis_id ?? "", surname, first, "10A/Ma1", state, ...rest];
    return [
      row(ben!, "Adams", "Ben", "no scan yet", ["", "10", "", "", "", "", ""]),
      row(ana!, "de la Cruz", "Ana María", "absent", ["", "10", "", "", "", "", ""]),
      row(chloe!, "Dubois", "Chloé", "marked", ["8.5", "10", "85", "3", "1.5", "4", '1a: Clear working; well done | 2: Check units, e.g. "cm"']),
      row(mateusz!, "Łukasik", "Mateusz", "incomplete", ["", "10", "", "2", "", "", ""]),
      row(zoe!, "O’Brien", "Zoë", "not marked", ["", "10", "", "", "", "", ""]),
      row(null, "", "", "needs a student", ["", "10", "", "", "", "", ""]),
    ];
  };
  const exportHeader = ["School ID", "Surname", "First name", "Class", "State", "Total", "Max", "Percentage", "1a", "1b", "2", "Comments"];

  describe("the teacher's CSV", () => {
    it("opens in a spreadsheet with accents intact: a byte-order mark, CRLF, the SIS id per row, blank totals until marked in full", async () => {
      const { batch } = await markedBatch();
      const response = await exportCall(exportCsvRoute, school.teacher.token, batch.id);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      const day = new Date(batch.created_at);
      const date = `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, "0")}-${String(day.getDate()).padStart(2, "0")}`;
      expect(response.headers.get("content-disposition")).toBe(`attachment; filename="10A Maths mock - ${date}.csv"; filename*=UTF-8''10A%20Maths%20mock%20-%20${date}.csv`);
      expect(response.headers.get("cache-control")).toBe("no-store");
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
      expect(text.startsWith("\uFEFFSchool ID,Surname,First name,")).toBe(true);
      expect(text.split("\r\n")).toHaveLength(8);
      expect(text.replaceAll("\r\n", "")).not.toMatch(/[\r\n]/);
      // Read back as a spreadsheet would: the CSV library the roster import uses, byte-order mark understood.
      const records: string[][] = parse(text, { bom: true, relax_column_count: false });
      expect(records[0]).toEqual(exportHeader);
      expect(records.slice(1)).toEqual(expectedRows());
      const chloe = records.find((record) => record[1] === "Dubois")!;
      expect(chloe[2]).toBe("Chloé");
      expect(chloe[0]).toBe(roster.students[0]!.sis_id);
    });

    it("leaves the contract's CSV as it was beside it (no byte-order mark there, Markbook's ids)", async () => {
      const { batch } = await markedBatch();
      const contract = await (await callRest(csvRoute, { token: school.teacher.token, params: { batch_id: batch.id } })).text();
      expect(contract.startsWith("student_name,student_id,status,1a,1b,2,total\r\n")).toBe(true);
    });

    it("hides names where the results screen does: an anonymous batch in script order with blank ids and names, revealed to its owner only", async () => {
      const { batch, slot, unmatched } = await markedBatch({ anonymous: true });
      const hidden: string[][] = parse(await (await exportCall(exportCsvRoute, school.teacher.token, batch.id)).text(), { bom: true });
      expect(hidden[0]).toEqual(["Script", ...exportHeader]);
      const numbers = [...roster.students.map((pupil) => slot(pupil).script_number), unmatched.script_number].sort((a, b) => a - b);
      expect(hidden.slice(1).map((record) => Number(record[0]))).toEqual(numbers);
      for (const record of hidden.slice(1)) expect(record.slice(1, 4)).toEqual(["", "", ""]);
      const text = hidden.flat().join(" ");
      for (const pupil of roster.students) {
        expect(text).not.toContain(pupil.full_name.split(" ")[0]);
        if (pupil.sis_id) expect(text).not.toContain(pupil.sis_id);
        expect(text).not.toContain(pupil.id);
      }
      const chloeScript = String(slot(roster.students[0]!).script_number);
      expect(hidden.find((record) => record[0] === chloeScript)!.slice(5)).toEqual(["marked", "8.5", "10", "85", "3", "1.5", "4", '1a: Clear working; well done | 2: Check units, e.g. "cm"']);

      const revealed = await exportCall(exportCsvRoute, school.teacher.token, batch.id, "?reveal_names=true");
      expect(revealed.status).toBe(200);
      const named: string[][] = parse(await revealed.text(), { bom: true });
      expect(named.slice(1).map((record) => record.slice(1))).toEqual(expectedRows());
      expect(Number(named[3]![0])).toBe(slot(roster.students[0]!).script_number);

      for (const route of [exportCsvRoute, exportXlsxRoute]) {
        const refused = await exportCall(route, school.otherTeacher.token, batch.id, "?reveal_names=true");
        expect(refused.status).toBe(403);
        expect((await refused.json()).detail).toBe("Only the batch's owner can reveal the names of an anonymous batch");
        expect((await exportCall(route, school.otherTeacher.token, batch.id)).status).toBe(200);
      }
    });

    it("answers 404 to another school's staff, to a student and for a batch that does not exist; a colleague of the school may read", async () => {
      const { batch } = await markedBatch();
      for (const route of [exportCsvRoute, exportXlsxRoute]) {
        for (const person of [otherSchool.teacher, otherSchool.admin, otherSchool.head, school.student, school.otherStudent]) {
          const refused = await exportCall(route, person.token, batch.id);
          expect(refused.status).toBe(404);
          expect((await refused.json()).detail).toMatch(/not found/i);
        }
        expect((await exportCall(route, school.teacher.token, crypto.randomUUID())).status).toBe(404);
        expect((await exportCall(route, school.otherTeacher.token, batch.id)).status).toBe(200);
        expect((await exportCall(route, school.head.token, batch.id)).status).toBe(200);
      }
    });

    it("refuses a hostile reveal_names with a 400 that names it, on both downloads", async () => {
      const { batch } = await markedBatch();
      const accepted = ["true", "false", "1", "0", "yes", "no", ""];
      const { seed } = fuzzSettings(40);
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(hostileString, fc.string({ maxLength: 40 })).filter((value) => !accepted.includes(value) && value.length < 10_000),
          fc.boolean(),
          async (value, xlsx) => {
            const response = await exportCall(xlsx ? exportXlsxRoute : exportCsvRoute, school.teacher.token, batch.id, `?${new URLSearchParams({ reveal_names: value })}`);
            expect(response.status).toBe(400);
            expect((await response.json()).detail).toMatch(/^Reveal names: /);
          },
        ),
        { seed, numRuns: 40 },
      );
    });
  });

  describe("the teacher's workbook", () => {
    it("holds the same table: numbers as numbers, blank cells blank, the header bold and frozen, the percentage formatted", async () => {
      const { batch } = await markedBatch();
      const response = await exportCall(exportXlsxRoute, school.teacher.token, batch.id);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
      expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="10A Maths mock - \d{4}-\d{2}-\d{2}\.xlsx"/);
      expect(response.headers.get("cache-control")).toBe("no-store");
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(await response.arrayBuffer());
      const sheet = workbook.getWorksheet("Results")!;
      expect(sheet).toBeDefined();
      expect(sheet.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
      expect(sheet.getRow(1).getCell(1).font?.bold).toBe(true);
      expect(sheet.rowCount).toBe(7);
      const values = (rowNumber: number) => exportHeader.map((_, index) => sheet.getRow(rowNumber).getCell(index + 1).value ?? null);
      expect(values(1)).toEqual(exportHeader);
      // Every cell of the CSV, read back from the workbook: numbers where the CSV has numbers, the percentage as a fraction.
      expectedRows().forEach((expected, index) => {
        const got = values(index + 2);
        expected.forEach((cell, column) => {
          if (cell === "") expect(got[column], `row ${index + 2} column ${exportHeader[column]}`).toBeNull();
          else if (exportHeader[column] === "Percentage") expect(got[column]).toBe(Number(cell) / 100);
          else if (/^\d+(\.\d+)?$/.test(cell) && column >= 5) expect(got[column]).toBe(Number(cell));
          else expect(got[column]).toBe(cell);
        });
      });
      expect(sheet.getRow(4).getCell(8).numFmt).toBe("0.0%");
      expect(sheet.getRow(4).getCell(2).value).toBe("Dubois");
      expect(sheet.getRow(4).getCell(3).value).toBe("Chloé");
      expect(sheet.getRow(4).getCell(1).value).toBe(roster.students[0]!.sis_id);
    });
  });

  describe("names split for the sheet", () => {
    it("takes the import's first name off the front of the full name, else the last word as the surname", () => {
      const word = fc.stringMatching(/^[A-Za-zÀ-ÿŁłØø’'-]{1,12}$/);
      fc.assert(
        fc.property(fc.array(word, { minLength: 1, maxLength: 3 }), fc.array(word, { minLength: 1, maxLength: 3 }), (firsts, lasts) => {
          const first = firsts.join(" ");
          const surname = lasts.join(" ");
          expect(splitName(`${first}  ${surname} `, first)).toEqual({ first, surname });
        }),
      );
      expect(splitName("Ada Lovelace", "Countess")).toEqual({ first: "Ada", surname: "Lovelace" });
      expect(splitName("Cher", null)).toEqual({ first: "", surname: "Cher" });
    });
  });
  describe("hostile text in the cells", () => {
    it("still opens: the workbook drops what XML cannot hold and keeps the rest; the CSV keeps one record per row", async () => {
      const { seed } = fuzzSettings(30);
      const batch = { id: crypto.randomUUID(), created_at: new Date(0) } as ResultsExport["batch"];
      const cell = fc.oneof(
        hostileString.filter((value) => value.length < 5000),
        fc.string({ maxLength: 30 }),
        fc.constantFrom("_x0041_", "a_X00E9_b_x005F_", "x\r\ny\rz", "Chloé\tDubois", "😀\ud800"),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(cell, cell), { minLength: 1, maxLength: 4 }), async (pairs) => {
          const table: ResultsExport = {
            batch,
            columns: [
              { header: "Surname", kind: "text" },
              { header: "Comments", kind: "text" },
              { header: "Total", kind: "number" },
            ],
            rows: pairs.map(([surname, comment], index) => [surname, comment, index]),
          };
          const workbook = new ExcelJS.Workbook();
          await workbook.xlsx.load((await renderExportXlsx(table)).buffer as ArrayBuffer);
          const sheet = workbook.getWorksheet("Results")!;
          pairs.forEach(([surname, comment], index) => {
            // What a workbook keeps of a text: no control character but tab and LF (CR read as LF), no
            // U+FFFE/U+FFFF, no lone surrogate; blank is an empty cell.
            const kept = (text: string) =>
              Array.from(text.replace(/\r\n?/g, "\n"))
                .filter((character) => {
                  const code = character.codePointAt(0)!;
                  if (code === 9 || code === 10) return true;
                  return !(code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0xfffe || code === 0xffff || (code >= 0xd800 && code <= 0xdfff));
                })
                .join("") || null;
            const read = (column: number) => sheet.getRow(index + 2).getCell(column).value ?? null;
            expect(read(1)).toBe(kept(surname));
            expect(read(2)).toBe(kept(comment));
            expect(read(3)).toBe(index);
          });
          const records: string[][] = parse(renderExportCsv(table), { bom: true });
          expect(records).toHaveLength(pairs.length + 1);
          for (const record of records) expect(record).toHaveLength(3);
        }),
        { seed, numRuns: 30 },
      );
    });
  });
});
