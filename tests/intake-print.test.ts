import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import fc from "fast-check";
import { PDFDocument } from "pdf-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as archiveRoute } from "../app/api/exam/batches/[batch_id]/archive/route";
import { POST as printRoute } from "../app/api/exam/batches/[batch_id]/printed-scripts/route";
import { rowsOf } from "../server/db/client";
import { asService } from "../server/db/rls";
import { examBatches, examPrintedScripts, examSubmissions } from "../server/db/schema";
import { isBatchCode } from "../server/exam/intake/print-code";
import { workerImaging } from "../server/exam/intake/imaging";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase, openSecondHandle } from "./support/database";
import { createClassWithStudents } from "./support/exam-fixtures";
import { uploadDemoPaper } from "./support/intake-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileJsonToken } from "./support/hostile-input";

/** "Print scripts": numbering, refusals, the PDF download, and the preview the dialog shows. */
describeOnEachDatabase("printing a batch's scripts", (database) => {
  let school: School;
  let otherSchool: School;
  let storageRoot: string;
  let paperFileId: string;
  let paperPages: number;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  /** A question "7" whose two answer areas fill the top and the bottom of page 3: no corner is clear there. */
  function canvasCoveringPage3() {
    const question = crypto.randomUUID();
    const area = (y: number) => ({ id: crypto.randomUUID(), question_id: question, page: 3, kind: "response" as const, response_form: "box", x: 0, y, width: 1, height: 0.2 });
    return {
      questions: [{ id: question, parent_id: null, label: "7", order: 0, max_marks: 4, answer_type: null, mark_scheme: null, spec_ref: null, is_container: false }],
      response_areas: [area(0), area(0.8)],
      boundaries: [],
    };
  }

  async function newBatch(options: { withPdf?: boolean; students?: number; title?: string } = {}) {
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title: "Mock", page_count: paperPages, source_file_id: options.withPdf === false ? null : paperFileId });
    await teacher.exam.templates.save({ template_id: template.id, body: canvasCoveringPage3() });
    const roster = await createClassWithStudents(database().db, school, options.students ?? 3);
    const batch = await teacher.exam.batches.create({ template_id: template.id, class_id: roster.class.id, title: options.title ?? "10A mock" });
    return { batch, roster, template };
  }

  function print(token: string, batchId: string, body: unknown = {}) {
    const request = new Request(`http://localhost/api/exam/batches/${batchId}/printed-scripts`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return printRoute(request, { params: Promise.resolve({ batch_id: batchId }) });
  }

  const scriptsOf = (batchId: string) =>
    asService(database().db, (tx) =>
      tx
        .select({ number: examPrintedScripts.script_number, submission: examPrintedScripts.submission_id, name: examSubmissions.student_name })
        .from(examPrintedScripts)
        .leftJoin(examSubmissions, eq(examSubmissions.id, examPrintedScripts.submission_id))
        .where(eq(examPrintedScripts.batch_id, batchId))
        .orderBy(examPrintedScripts.script_number),
    );
  const printCodeOf = async (batchId: string) =>
    (await asService(database().db, (tx) => tx.select({ code: examBatches.print_code }).from(examBatches).where(eq(examBatches.id, batchId))))[0]!.code;
  const pagesOf = async (response: Response) => (await PDFDocument.load(new Uint8Array(await response.arrayBuffer()))).getPageCount();

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-print-"));
    useObjectStorage(createLocalStorage(storageRoot));
    setIntakeImaging(workerImaging());
    school = await createSchool(database().db, "Print");
    otherSchool = await createSchool(database().db, "Elsewhere");
    ({ fileId: paperFileId, pageCount: paperPages } = await uploadDemoPaper(school));
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  it("downloads one PDF: every student's script and the spare copies, each the paper's pages, named after the batch", async () => {
    const { batch } = await newBatch({ title: "10A / Mock: Zoë" });
    const response = await print(school.teacher.token, batch.id, { spare_copies: 2 });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="10A - Mock Zoe - scripts.pdf"; filename*=UTF-8''10A%20-%20Mock%20Zo%C3%AB%20-%20scripts.pdf`,
    );
    // A print is made anew each time: never kept (exam.intake.printScripts' `respond`).
    expect(response.headers.get("cache-control")).toBe("no-store");
    const bytes = Buffer.from(await response.clone().arrayBuffer());
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(await pagesOf(response)).toBe((3 + 2) * paperPages);
  });

  it("prints each student's script with its submission's number and the spare copies after; a reprint keeps every number", async () => {
    const { batch, roster } = await newBatch();
    expect(await printCodeOf(batch.id)).toBeNull();
    expect((await print(school.teacher.token, batch.id, { spare_copies: 2 })).status).toBe(200);
    const code = await printCodeOf(batch.id);
    expect(isBatchCode(code!)).toBe(true);
    const first = await scriptsOf(batch.id);
    const numberOf = new Map(
      (await asService(database().db, (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.batch_id, batch.id)))).map((row) => [row.id, row.script_number]),
    );
    const students = first.filter((row) => row.submission);
    expect(students.map((row) => row.name).sort()).toEqual(roster.students.map((student) => student.full_name).sort());
    for (const row of students) expect(row.number).toBe(numberOf.get(row.submission!));
    expect(first.map((row) => row.number)).toEqual([1, 2, 3, 4, 5]);
    expect(first.slice(3).map((row) => row.submission)).toEqual([null, null]);

    const again = await print(school.teacher.token, batch.id, { spare_copies: 1 });
    expect(await pagesOf(again)).toBe(4 * paperPages);
    const second = await scriptsOf(batch.id);
    expect(second.slice(0, 5)).toEqual(first);
    expect(second.slice(5).map((row) => [row.number, row.submission])).toEqual([[6, null]]);
    expect(await printCodeOf(batch.id)).toBe(code);
  });

  it("reprints one lost script alone, with its number; a student who joins later gets the next number, never a spare's", async () => {
    const { batch } = await newBatch();
    await print(school.teacher.token, batch.id, { spare_copies: 2 });
    const before = await scriptsOf(batch.id);
    const lost = before[1]!;
    const reprint = await print(school.teacher.token, batch.id, { submission_ids: [lost.submission!.toUpperCase()] });
    expect(reprint.status).toBe(200);
    expect(await pagesOf(reprint)).toBe(paperPages);
    expect(await scriptsOf(batch.id)).toEqual(before);

    const newcomer = await createClassWithStudents(database().db, school, 1);
    await asService(database().db, (tx) =>
      tx.insert(examSubmissions).values({ batch_id: batch.id, student_id: newcomer.students[0]!.id, student_name: "Aaron Newcomer", status: "absent" }),
    );
    expect(await pagesOf(await print(school.teacher.token, batch.id, {}))).toBe(4 * paperPages);
    const after = await scriptsOf(batch.id);
    expect(after.slice(0, 5)).toEqual(before);
    expect(after.slice(5).map((row) => [row.number, row.name])).toEqual([[6, "Aaron Newcomer"]]);
  });

  it("two prints racing for the same numbers: the second waits for the first and numbers after it (PostgreSQL)", async (context) => {
    if (database().kind !== "postgres") return context.skip("one connection on PGlite: prints cannot overlap there");
    const { batch } = await newBatch();
    await print(school.teacher.token, batch.id, { spare_copies: 0 });
    const code = await printCodeOf(batch.id);
    // Inserts of script numbers wait behind this lock while reads go on: without the batch lock, both
    // prints would read the same largest number and then collide on it.
    const holder = await openSecondHandle(database());
    let racing: Promise<Response[]> | undefined;
    try {
      await holder.db.transaction(async (tx) => {
        await tx.execute(sql`lock table exam_printed_scripts in exclusive mode`);
        racing = Promise.all([print(school.teacher.token, batch.id, { spare_copies: 2 }), print(school.teacher.token, batch.id, { spare_copies: 2 })]);
        await untilWaiting(2);
      });
      expect((await racing!).map((response) => response.status)).toEqual([200, 200]);
    } finally {
      await holder.close();
    }
    expect((await scriptsOf(batch.id)).map((row) => row.number)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(await printCodeOf(batch.id)).toBe(code);
  });

  /** Waits until `count` statements of this database wait for a lock. */
  async function untilWaiting(count: number) {
    for (let attempt = 0; attempt < 600; attempt++) {
      const [row] = rowsOf<{ waiting: number }>(
        await database().db.execute(sql`select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`),
      );
      if (Number(row?.waiting ?? 0) >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`fewer than ${count} statements ever waited for a lock`);
  }

  describe("refusals", () => {
    it("404 outside the school (and to a student), 403 to a colleague, 409 when archived", async () => {
      const { batch } = await newBatch({ students: 1 });
      expect((await print(otherSchool.teacher.token, batch.id)).status).toBe(404);
      expect((await print(school.student.token, batch.id)).status).toBe(404);
      expect((await print(school.teacher.token, crypto.randomUUID())).status).toBe(404);
      const colleague = await print(school.otherTeacher.token, batch.id);
      expect(colleague.status).toBe(403);
      expect((await colleague.json()).detail).toBe(`This batch is ${school.teacher.full_name}'s: only its owner can print its scripts; ask ${school.teacher.full_name} if you should`);
      await archiveRoute(new Request("http://localhost/x", { method: "POST", headers: { authorization: `Bearer ${school.teacher.token}` } }), {
        params: Promise.resolve({ batch_id: batch.id }),
      });
      const archived = await print(school.teacher.token, batch.id);
      expect(archived.status).toBe(409);
      expect((await archived.json()).detail).toBe("The batch is archived: it accepts no more printed scripts");
      expect(await scriptsOf(batch.id)).toEqual([]);
    });

    it("409 when the template has no PDF, and nothing is numbered", async () => {
      const { batch } = await newBatch({ withPdf: false, students: 1 });
      const refused = await print(school.teacher.token, batch.id, { spare_copies: 2 });
      expect(refused.status).toBe(409);
      expect((await refused.json()).detail).toBe("This paper has no PDF to print: add the paper's PDF to its template first");
      expect(await scriptsOf(batch.id)).toEqual([]);
      expect(await printCodeOf(batch.id)).toBeNull();
    });

    it("400 naming the field: spare copies beyond 0–100, a submission not on the roster, too many submissions", async () => {
      const { batch } = await newBatch({ students: 1 });
      const detail = async (body: unknown) => {
        const response = await print(school.teacher.token, batch.id, body);
        expect(response.status).toBe(400);
        return (await response.json()).detail as string;
      };
      expect(await detail({ spare_copies: 101 })).toBe("Spare copies: must be at most 100");
      expect(await detail({ spare_copies: -1 })).toBe("Spare copies: must be 0 or more");
      expect(await detail({ spare_copies: 1.5 })).toBe("Spare copies: must be a whole number");
      const stranger = crypto.randomUUID();
      expect(await detail({ submission_ids: [stranger] })).toBe(`Submissions: ${stranger} is not a student's script of this batch`);
      expect(await detail({ submission_ids: Array.from({ length: 2001 }, () => crypto.randomUUID()) })).toMatch(/^Submissions: must name at most 2000/);
      expect(await detail({ submission_ids: [] })).toMatch(/^Submissions: must name at least one/);
      expect(await scriptsOf(batch.id)).toEqual([]);
    });

    it("400 for a print of nothing: a batch without a class list and no spare copies; with spare copies it prints them", async () => {
      const teacher = as(school.teacher);
      const template = await teacher.exam.templates.create({ title: "Mock", page_count: paperPages, source_file_id: paperFileId });
      const batch = await teacher.exam.batches.create({ template_id: template.id, title: "No class" });
      const refused = await print(school.teacher.token, batch.id, { spare_copies: 0 });
      expect(refused.status).toBe(400);
      expect((await refused.json()).detail).toBe("Spare copies: this batch has no students to print for, so ask for at least one spare copy");
      const spares = await print(school.teacher.token, batch.id, { spare_copies: 3 });
      expect(await pagesOf(spares)).toBe(3 * paperPages);
      expect((await scriptsOf(batch.id)).map((row) => [row.number, row.submission])).toEqual([[1, null], [2, null], [3, null]]);
    });

    it("hostile spare_copies and submission_ids: a PDF or a 400 naming the field (413 for a body too large), never anything else", async () => {
      const { batch } = await newBatch({ students: 1 });
      const { seed, cases } = fuzzSettings(40);
      await fc.assert(
        fc.asyncProperty(fc.constantFrom("spare_copies", "submission_ids", "submission_ids.0"), hostileJsonToken, async (field, token) => {
          const body = field === "spare_copies" ? `{"spare_copies":${token}}` : field === "submission_ids" ? `{"submission_ids":${token}}` : `{"submission_ids":[${token}]}`;
          const response = await print(school.teacher.token, batch.id, body);
          if (response.status === 200) return;
          // 413 only for a body beyond the JSON limit (the megabyte strings).
          expect([400, 413]).toContain(response.status);
          expect((await response.json()).detail).toMatch(/^(Spare copies|Submissions?\b|The body|The request|The key)/);
        }),
        { seed, numRuns: cases },
      );
    });
  });

  describe("the preview the print dialog shows", () => {
    it("counts students and pages, says which pages' stamps cover an answer area, and spare copies printed so far", async () => {
      const { batch } = await newBatch();
      const empty = { batch_id: batch.id, students: 3, pages_per_script: paperPages, spare_copies_printed: 0, cannot_print: null };
      const warnings = [{ page: 3, questions: ["7"], name_box: false }];
      expect(await as(school.teacher).exam.intake.printPreview({ batch_id: batch.id })).toEqual({ ...empty, warnings });
      await print(school.teacher.token, batch.id, { spare_copies: 2 });
      expect(await as(school.teacher).exam.intake.printPreview({ batch_id: batch.id })).toMatchObject({ spare_copies_printed: 2 });
      // A colleague sees the facts and why they cannot print.
      expect(await as(school.otherTeacher).exam.intake.printPreview({ batch_id: batch.id })).toMatchObject({
        students: 3,
        cannot_print: `This batch is ${school.teacher.full_name}'s: only its owner can print its scripts; ask ${school.teacher.full_name} if you should`,
      });
    });

    it("keeps the stamps off the template's name box, and says so when a page has no free corner", async () => {
      const { batch, template } = await newBatch({ students: 1 });
      await as(school.teacher).exam.templates.save({ template_id: template.id, body: { name_box: { page: 2, x: 0, y: 0, width: 1, height: 1 } } });
      expect((await as(school.teacher).exam.intake.printPreview({ batch_id: batch.id })).warnings).toEqual([
        { page: 2, questions: [], name_box: true },
        { page: 3, questions: ["7"], name_box: false },
      ]);
    });

    it("says why a batch cannot be printed: no PDF, archived", async () => {
      const { batch } = await newBatch({ withPdf: false, students: 1 });
      expect(await as(school.teacher).exam.intake.printPreview({ batch_id: batch.id })).toMatchObject({
        pages_per_script: paperPages,
        warnings: [],
        cannot_print: "This paper has no PDF to print: add the paper's PDF to its template first",
      });
      const open = await newBatch({ students: 1 });
      await as(school.teacher).exam.batches.archive({ batch_id: open.batch.id });
      expect((await as(school.teacher).exam.intake.printPreview({ batch_id: open.batch.id })).cannot_print).toMatch(/archived/);
    });

    it("is not found outside the school, for a student, or for a batch that does not exist (a malformed id included)", async () => {
      const { batch } = await newBatch({ students: 1 });
      await expect(as(otherSchool.teacher).exam.intake.printPreview({ batch_id: batch.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(as(school.student).exam.intake.printPreview({ batch_id: batch.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(as(school.teacher).exam.intake.printPreview({ batch_id: crypto.randomUUID() })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(as(school.teacher).exam.intake.printPreview({ batch_id: "nope" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    });
  });
});
