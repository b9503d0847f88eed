import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { POST as createBatchRoute } from "../app/api/exam/batches/route";
import { PUT as putTemplate } from "../app/api/exam/templates/[template_id]/route";
import { POST as postTemplate } from "../app/api/exam/templates/route";
import { asUser } from "../server/db/rls";
import { examAnnotations } from "../server/db/schema";
import { AppError } from "../server/errors";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { loadMarkedScriptForStaff } from "../server/exam/returns/marked-pdf/load";
import { renderMarkedScript } from "../server/exam/returns/marked-pdf/render";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { timeoutFor } from "./support/busy-machine";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, sampleCanvas, uploadScanInOrder } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { imagingDouble } from "./support/intake-imaging-double";
import { pdfTextPages } from "./support/pdf-text";
import { scanPile } from "./support/scanned-pile";

/**
 * The marked script's document for staff (server/exam/returns/marked-pdf/load.ts), read from the
 * database as the caller: what it holds equals what the marking saved, its PDF's marks equal the
 * results table's, and nobody outside the batch's school (nor a student) reads it.
 */

let scan: Uint8Array;

beforeAll(async () => {
  const paper = await PDFDocument.create();
  const font = await paper.embedFont(StandardFonts.Helvetica);
  for (let page = 1; page <= 3; page++) paper.addPage([595.28, 841.89]).drawText(`Page ${page}`, { x: 56, y: 780, size: 16, font });
  scan = (await scanPile(await paper.save(), { seed: 3, pagesPerScript: 3, dpi: 72, upsideDown: 0, duplicate: false, missing: false, shuffle: false })).pdf;
}, timeoutFor(5));

describeOnEachDatabase("the marked script's document for staff", (database) => {
  let school: School;
  let otherSchool: School;
  let storageRoot: string;
  let batchId: string;
  let submissionId: string;
  let studentName: string;
  let canvas: ReturnType<typeof sampleCanvas>;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const storage = () => createLocalStorage(storageRoot);

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-marked-pdf-"));
    useObjectStorage(storage());
    school = await createSchool(database().db, "Marked PDF");
    otherSchool = await createSchool(database().db, "Elsewhere");
    const template = await (await callRest(postTemplate, { method: "POST", token: school.teacher.token, body: { title: "Mock paper 1", page_count: 3 } })).json();
    canvas = sampleCanvas();
    await callRest(putTemplate, { method: "PUT", token: school.teacher.token, body: canvas, params: { template_id: template.id } });
    const roster = await createClassWithStudents(database().db, school, 2);
    const batch = await (await callRest(createBatchRoute, { method: "POST", token: school.teacher.token, body: { template_id: template.id, class_id: roster.class.id, title: "11X autumn mock" } })).json();
    batchId = batch.id;
    const uploaded = await uploadScanInOrder(school.teacher.token, batchId, scan);
    expect(uploaded.status).toBe(200);
    const submission = await uploaded.json();
    submissionId = submission.id;
    studentName = submission.student_name;
    const mark = (questionId: string, awarded: number | null, comment: string | null) =>
      as(school.teacher).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: submissionId, question_id: questionId, awarded_marks: awarded, comment } });
    await mark(canvas.ids.q1a, 2.5, "Zoë: show the working.");
    await mark(canvas.ids.q2, 4, null);
    await asUser(database().db, school.teacher.id, (tx) =>
      tx.insert(examAnnotations).values([
        { id: crypto.randomUUID(), batch_id: batchId, submission_id: submissionId, page: 1, kind: "tick", geometry: { x: 0.3, y: 0.3 }, author_id: school.teacher.id },
        { id: crypto.randomUUID(), batch_id: batchId, submission_id: submissionId, page: 3, kind: "text", geometry: { x: 0.2, y: 0.5 }, text: "Units?", author_id: school.teacher.id },
        { id: crypto.randomUUID(), batch_id: batchId, submission_id: submissionId, page: 2, kind: "cross", layer: "second_marking", geometry: { x: 0.5, y: 0.5 }, author_id: school.teacher.id },
      ]),
    );
  }, timeoutFor(10));
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  it("holds the marks, comments, response areas, first-marking annotations and the scan as the marking saved them", async () => {
    const document = await loadMarkedScriptForStaff(database().db, school.teacher.id, submissionId, { storage: storage() });
    expect(document.who).toBe(studentName);
    expect(document.batchTitle).toBe("11X autumn mock");
    expect(document.paperTitle).toBe("Mock paper 1");
    expect(document.questions.map(({ label, max, awarded, comment }) => ({ label, max, awarded, comment }))).toEqual([
      { label: "1a", max: 3, awarded: 2.5, comment: "Zoë: show the working." },
      { label: "1b", max: 2, awarded: null, comment: null },
      { label: "2", max: 5, awarded: 4, comment: null },
    ]);
    expect(document.questions.map((question) => question.responseAreas)).toEqual([1, 2, 3].map((page) => [{ page, x: 0.1, y: 0.2, width: 0.5, height: 0.25 }]));
    expect(document.total).toEqual({ awarded: 6.5, max: 10 });
    // The second marker's layer is never part of the returned script.
    expect(document.annotations).toEqual([
      { page: 1, shapes: [{ kind: "tick", x: 0.3, y: 0.3 }] },
      { page: 3, shapes: [{ kind: "text", x: 0.2, y: 0.5, text: "Units?" }] },
    ]);
    expect(Buffer.from(document.scan).equals(Buffer.from(scan))).toBe(true);
  });

  it("makes a PDF whose marks equal the results table's for every question", async () => {
    const document = await loadMarkedScriptForStaff(database().db, school.teacher.id, submissionId, { storage: storage() });
    const pages = await pdfTextPages(await renderMarkedScript(document));
    const cover = pages[0]!.split("\n").filter((line) => line.trim() !== "");
    const results = await as(school.teacher).exam.batches.results({ batch_id: batchId });
    const row = results.results.find((result) => result.submission_id === submissionId)!;
    for (const question of results.questions) {
      const awarded = row.marks[question.id];
      const at = cover.indexOf(question.label, cover.indexOf("Comment"));
      expect(cover[at + 1], question.label).toBe(`${awarded === null || awarded === undefined ? "–" : String(awarded)} / ${question.max_marks}`);
    }
    expect(cover).toContain(`Total: ${row.total} / 10 (65%)`);
  }, timeoutFor(5));

  it("answers 404 to another school's teacher, to a student, for an unknown or malformed id", async () => {
    for (const [caller, id] of [
      [otherSchool.teacher.id, submissionId],
      [school.student.id, submissionId],
      [school.teacher.id, crypto.randomUUID()],
      [school.teacher.id, "not-a-uuid"],
    ] as const) {
      const error = await loadMarkedScriptForStaff(database().db, caller, id, { storage: storage() }).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: "not_found", message: "Submission not found" });
    }
  });

  it("lets a colleague of the same school read it, as the scan route does", async () => {
    const document = await loadMarkedScriptForStaff(database().db, school.otherTeacher.id, submissionId, { storage: storage() });
    expect(document.questions.map((question) => question.awarded)).toEqual([2.5, null, 4]);
  });

  it("names an anonymous batch's script by its number, its scan without the name, and no name anywhere in its PDF", async () => {
    setIntakeImaging(imagingDouble());
    await as(school.teacher).exam.batches.setAnonymous({ batch_id: batchId, anonymous: true });
    const document = await loadMarkedScriptForStaff(database().db, school.teacher.id, submissionId, { storage: storage() });
    expect(document.who).toMatch(/^Script \d+$/);
    // The scan as the scan route serves it in an anonymous batch: redacted, never the stored file.
    expect(Buffer.from(document.scan).equals(Buffer.from(scan))).toBe(false);
    const text = (await pdfTextPages(await renderMarkedScript(document))).join("\n");
    expect(text).toContain(document.who);
    expect(text).not.toContain(studentName);
  }, timeoutFor(5));
});
