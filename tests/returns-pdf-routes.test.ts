import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { unzipSync } from "fflate";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { GET as feedbackSheetsRoute } from "../app/api/exam/batches/[batch_id]/feedback-sheets/route";
import { GET as markedScriptsRoute } from "../app/api/exam/batches/[batch_id]/marked-scripts/route";
import { POST as createBatchRoute } from "../app/api/exam/batches/route";
import { GET as staffMarkedPdfRoute } from "../app/api/exam/submissions/[submission_id]/marked-pdf/route";
import { PUT as putTemplate } from "../app/api/exam/templates/[template_id]/route";
import { POST as postTemplate } from "../app/api/exam/templates/route";
import { GET as myMarkedPdfRoute } from "../app/api/me/scripts/[submission_id]/marked-pdf/route";
import { signUserToken } from "../server/auth/tokens";
import { asUser } from "../server/db/rls";
import { examAnnotations } from "../server/db/schema";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { timeoutFor } from "./support/busy-machine";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, sampleCanvas, uploadScanInOrder } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { imagingDouble } from "./support/intake-imaging-double";
import { pdfTextPages } from "./support/pdf-text";
import { releaseForTest, withdrawForTest } from "./support/release-fixtures";
import { scanPile } from "./support/scanned-pile";

/**
 * The marked PDFs over HTTP (issue 35, items 4 and 5): staff's one script, the batch's zip and its
 * feedback sheets, and the student's own script. Their marks equal the results table's; the student's
 * is theirs only; an anonymous batch's files name no student.
 */

let scan: Uint8Array;

beforeAll(async () => {
  const paper = await PDFDocument.create();
  const font = await paper.embedFont(StandardFonts.Helvetica);
  for (let page = 1; page <= 3; page++) paper.addPage([595.28, 841.89]).drawText(`Page ${page}`, { x: 56, y: 780, size: 16, font });
  scan = (await scanPile(await paper.save(), { seed: 5, pagesPerScript: 3, dpi: 72, upsideDown: 0, duplicate: false, missing: false, shuffle: false })).pdf;
}, timeoutFor(5));

const bytesOf = async (reply: Response) => new Uint8Array(await reply.arrayBuffer());
/** The cover's lines, without blanks. */
const linesOf = (page: string) => page.split("\n").filter((line) => line.trim() !== "");

describeOnEachDatabase("marked PDFs over HTTP", (database) => {
  let school: School;
  let otherSchool: School;
  let storageRoot: string;
  let batchId: string;
  /** The scanned scripts: submission id, the student's id and name, and a token of theirs. */
  let scripts: { id: string; studentId: string; name: string; token: string }[];
  /** Every student of the class, in the class list (by name). */
  let classNames: string[];
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-pdf-routes-"));
    useObjectStorage(createLocalStorage(storageRoot));
    school = await createSchool(database().db, "PDF routes");
    otherSchool = await createSchool(database().db, "Elsewhere");
    const template = await (await callRest(postTemplate, { method: "POST", token: school.teacher.token, body: { title: "Mock paper 2", page_count: 3 } })).json();
    const canvas = sampleCanvas();
    await callRest(putTemplate, { method: "PUT", token: school.teacher.token, body: canvas, params: { template_id: template.id } });
    // Three students: two scanned (in the zip), one not (a feedback sheet only).
    const roster = await createClassWithStudents(database().db, school, 3);
    const batch = await (await callRest(createBatchRoute, { method: "POST", token: school.teacher.token, body: { template_id: template.id, class_id: roster.class.id, title: "10Y spring mock" } })).json();
    batchId = batch.id;
    scripts = [];
    for (let index = 0; index < 2; index++) {
      const uploaded = await uploadScanInOrder(school.teacher.token, batchId, scan);
      expect(uploaded.status).toBe(200);
      const submission = await uploaded.json();
      scripts.push({ id: submission.id, studentId: submission.student_id, name: submission.student_name, token: await signUserToken({ userId: submission.student_id, ttlSeconds: 600 }) });
    }
    const mark = (submissionId: string, questionId: string, awarded: number | null, comment: string | null = null) =>
      as(school.teacher).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: submissionId, question_id: questionId, awarded_marks: awarded, comment, confirmed: true } });
    await mark(scripts[0]!.id, canvas.ids.q1a, 2.5, "Show the working.");
    await mark(scripts[0]!.id, canvas.ids.q2, 4);
    await mark(scripts[1]!.id, canvas.ids.q1a, 1);
    await mark(scripts[1]!.id, canvas.ids.q1b, 2);
    await mark(scripts[1]!.id, canvas.ids.q2, 5, "Well done.");
    await asUser(database().db, school.teacher.id, (tx) =>
      tx.insert(examAnnotations).values({ id: crypto.randomUUID(), batch_id: batchId, submission_id: scripts[0]!.id, page: 1, kind: "text", geometry: { x: 0.2, y: 0.5 }, text: "Units?", author_id: school.teacher.id }),
    );
    // The class list's order is the results table's (by name).
    classNames = (await as(school.teacher).exam.batches.results({ batch_id: batchId })).results.map((result) => result.student_name ?? "");
    expect(classNames).toHaveLength(roster.students.length);
    expect(classNames.every((name) => name.length > 3)).toBe(true);
  }, timeoutFor(15));
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  /** Checks a cover's marks against the results table: every question's "awarded / max", and the total. */
  async function expectCoverEqualsResults(cover: string[], submissionId: string) {
    const results = await as(school.teacher).exam.batches.results({ batch_id: batchId });
    const row = results.results.find((result) => result.submission_id === submissionId)!;
    for (const question of results.questions) {
      const awarded = row.marks[question.id];
      const at = cover.indexOf(question.label, cover.indexOf("Comment"));
      expect(at, question.label).toBeGreaterThan(0);
      expect(cover[at + 1], question.label).toBe(`${awarded === null || awarded === undefined ? "–" : String(awarded)} / ${question.max_marks}`);
    }
    expect(cover.some((line) => line.startsWith(`Total: ${row.total} / 10`))).toBe(true);
  }

  it("gives staff one script's marked PDF, its marks equal to the results table's and what to revise filled in", async () => {
    const reply = await callRest(staffMarkedPdfRoute, { token: school.teacher.token, params: { submission_id: scripts[0]!.id } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/pdf");
    expect(reply.headers.get("content-disposition")).toMatch(/^attachment; filename=".+\.pdf"/);
    const pages = await pdfTextPages(await bytesOf(reply));
    const cover = linesOf(pages[0]!);
    await expectCoverEqualsResults(cover, scripts[0]!.id);
    expect(cover).toContain(scripts[0]!.name);
    // Q2 lost 1 of 5 (8300.A2), 1a lost 0.5 of 3 (its question's 8300.N1); 1b has no mark and counts toward nothing.
    const revise = pages[0]!.slice(pages[0]!.indexOf("What to revise"));
    expect(revise.indexOf("8300.A2")).toBeGreaterThan(0);
    expect(revise.indexOf("8300.N1")).toBeGreaterThan(revise.indexOf("8300.A2"));
    expect(pages.join("\n")).toContain("Units?");
  }, timeoutFor(10));

  it("gives staff the batch's zip: one PDF per scanned student, named by the student, each cover equal to the results", async () => {
    const reply = await callRest(markedScriptsRoute, { token: school.otherTeacher.token, params: { batch_id: batchId } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/zip");
    const entries = unzipSync(await bytesOf(reply));
    expect(Object.keys(entries).sort()).toEqual(scripts.map((script) => `${script.name}.pdf`).sort());
    for (const script of scripts) {
      const pages = await pdfTextPages(entries[`${script.name}.pdf`]!);
      expect(pages.length).toBeGreaterThan(3);
      const cover = linesOf(pages[0]!);
      expect(cover).toContain(script.name);
      await expectCoverEqualsResults(cover, script.id);
    }
  }, timeoutFor(15));

  it("gives staff the feedback sheets: one cover per student (absent ones left out), in the class list's order", async () => {
    await as(school.teacher).exam.batches.results({ batch_id: batchId });
    const reply = await callRest(feedbackSheetsRoute, { token: school.teacher.token, params: { batch_id: batchId } });
    expect(reply.status).toBe(200);
    const pages = await pdfTextPages(await bytesOf(reply));
    // Each cover starts a new page and names its student on every page: the students in page order.
    const order = pages.map((page) => classNames.find((name) => page.includes(name))).filter((name, index, all) => name !== all[index - 1]);
    expect(order).toEqual(classNames);
    const results = await as(school.teacher).exam.batches.results({ batch_id: batchId });
    for (const script of scripts) {
      const first = pages.find((page) => page.includes(script.name))!;
      await expectCoverEqualsResults(linesOf(first), script.id);
    }
    expect(results.results).toHaveLength(3);
  }, timeoutFor(15));

  it("answers 404 to a student, to another school, and for an unknown or malformed id", async () => {
    for (const token of [scripts[0]!.token, otherSchool.teacher.token, otherSchool.admin.token]) {
      expect((await callRest(staffMarkedPdfRoute, { token, params: { submission_id: scripts[0]!.id } })).status).toBe(404);
      expect((await callRest(markedScriptsRoute, { token, params: { batch_id: batchId } })).status).toBe(404);
      expect((await callRest(feedbackSheetsRoute, { token, params: { batch_id: batchId } })).status).toBe(404);
    }
    for (const id of [crypto.randomUUID(), "not-a-uuid"]) {
      expect((await callRest(staffMarkedPdfRoute, { token: school.teacher.token, params: { submission_id: id } })).status).toBe(404);
      expect((await callRest(markedScriptsRoute, { token: school.teacher.token, params: { batch_id: id } })).status).toBe(404);
    }
  });

  it("gives a student their own released script as a PDF, and 404 for anything else", async () => {
    const [mine, classmate] = scripts as [(typeof scripts)[0], (typeof scripts)[0]];
    const ask = (token: string, id: string) => callRest(myMarkedPdfRoute, { token, params: { submission_id: id } });
    // Not released yet.
    expect((await ask(mine.token, mine.id)).status).toBe(404);
    await releaseForTest(database().db, batchId);
    const reply = await ask(mine.token, mine.id);
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/pdf");
    const pages = await pdfTextPages(await bytesOf(reply));
    const cover = linesOf(pages[0]!);
    await expectCoverEqualsResults(cover, mine.id);
    expect(cover).toContain(mine.name);
    expect(pages.join("\n")).not.toContain(classmate.name);
    expect(pages[0]).toContain("8300.A2");
    // Another student's, another school's caller, a member of staff (My work is a student's own), an unknown id.
    expect((await ask(classmate.token, mine.id)).status).toBe(404);
    expect((await ask(otherSchool.student.token, mine.id)).status).toBe(404);
    expect((await ask(school.teacher.token, mine.id)).status).toBe(404);
    expect((await ask(mine.token, crypto.randomUUID())).status).toBe(404);
    expect((await ask(mine.token, "not-a-uuid")).status).toBe(404);
    // Withdrawn.
    await withdrawForTest(database().db, batchId);
    expect((await ask(mine.token, mine.id)).status).toBe(404);
  }, timeoutFor(10));

  it("names no student in an anonymous batch's zip and feedback sheets: entries and covers are 'Script N'", async () => {
    setIntakeImaging(imagingDouble());
    await as(school.teacher).exam.batches.setAnonymous({ batch_id: batchId, anonymous: true });
    const zip = await callRest(markedScriptsRoute, { token: school.teacher.token, params: { batch_id: batchId } });
    expect(zip.status).toBe(200);
    const entries = unzipSync(await bytesOf(zip));
    expect(Object.keys(entries)).toHaveLength(2);
    for (const [name, pdf] of Object.entries(entries)) {
      expect(name).toMatch(/^Script \d+\.pdf$/);
      const text = (await pdfTextPages(pdf)).join("\n");
      expect(text).toContain(name.replace(/\.pdf$/, ""));
      for (const student of classNames) expect(text).not.toContain(student);
    }
    const sheets = await callRest(feedbackSheetsRoute, { token: school.teacher.token, params: { batch_id: batchId } });
    expect(sheets.status).toBe(200);
    const pages = await pdfTextPages(await bytesOf(sheets));
    const text = pages.join("\n");
    for (const student of classNames) expect(text).not.toContain(student);
    // In script-number order, never the names' (that order would tell who is who).
    const numbers = pages.map((page) => Number(/Script (\d+)/.exec(page)?.[1])).filter((number, index, all) => number !== all[index - 1]);
    expect(numbers).toHaveLength(3);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(sheets.headers.get("content-disposition")).not.toContain("Student");
  }, timeoutFor(20));

  it("leaves a student marked absent out of the feedback sheets", async () => {
    const results = await as(school.teacher).exam.batches.results({ batch_id: batchId });
    const unscanned = results.results.find((result) => !scripts.some((script) => script.id === result.submission_id))!;
    await as(school.teacher).exam.submissions.setAbsence({ submission_id: unscanned.submission_id, absent: true });
    const pages = await pdfTextPages(await bytesOf(await callRest(feedbackSheetsRoute, { token: school.teacher.token, params: { batch_id: batchId } })));
    const numbers = pages.map((page) => Number(/Script (\d+)/.exec(page)?.[1])).filter((number, index, all) => number !== all[index - 1]);
    expect(numbers).toHaveLength(2);
  }, timeoutFor(10));
});
