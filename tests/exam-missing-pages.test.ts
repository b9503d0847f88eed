/**
 * Issue 32, item 2: a missing page never shifts the evidence. A script filed from a pile without its
 * page 2 is assembled from pages 1, 3 and 4; what the server sends with its marks says which page of
 * the paper each page of the scan is, and how many pages the paper has, so the marking screen places
 * them by page number (the placement itself: tests/marking-page-placement.test.ts; the screen:
 * e2e/missing-page.spec.ts). In an anonymous batch the name box is hidden on the page that holds it.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PATCH as patchBatchRoute } from "../app/api/exam/batches/[batch_id]/route";
import { GET as scanRoute } from "../app/api/exam/submissions/[submission_id]/scan/route";
import { POST as postTemplate } from "../app/api/exam/templates/route";
import { PDFDocument } from "pdf-lib";
import { asService } from "../server/db/rls";
import { examSubmissions, examTemplates } from "../server/db/schema";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { renderPageGrey } from "../server/exam/intake/imaging/pdfjs";
import { processScanPile } from "../server/exam/intake/pile-job";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, sampleCanvas, uploadScanInOrder } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { postPile, printedBatch } from "./support/intake-fixtures";
import { imagingDouble, sheetsOf, testPile } from "./support/intake-imaging-double";
import { fuzzSettings } from "./support/hostile-input";
import { releaseForTest } from "./support/release-fixtures";

describeOnEachDatabase("a script with a page not scanned: what the server sends to place its pages", (database) => {
  let school: School;
  let otherSchool: School;
  let storageRoot: string;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-missing-pages-"));
    useObjectStorage(createLocalStorage(storageRoot));
    setIntakeImaging(imagingDouble());
    school = await createSchool(database().db, "Missing pages");
    otherSchool = await createSchool(database().db, "Elsewhere");
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  /** A printed batch of one student on a paper of `pageCount` pages, its pile holding `scanned` pages of script 1 in that order. */
  async function filedScript(pageCount: number, scanned: number[]) {
    const template = await (await callRest(postTemplate, { method: "POST", token: school.teacher.token, body: { title: "Four pages", page_count: pageCount } })).json();
    const printed = await printedBatch(database().db, school, template.id, { students: 1, spares: 0 });
    const pile = await postPile(school.teacher.token, printed.batch.id, await testPile(scanned.map((page) => ({ label: `p${page}`, code: printed.code(1, page) }))));
    expect(pile.status).toBe(202);
    await processScanPile(database().db, ((await pile.json()) as { id: string }).id, imagingDouble());
    return { templateId: template.id as string, batchId: printed.batch.id, submissionId: printed.slots[0]!.id };
  }

  const servedLabels = async (token: string, submissionId: string) => {
    const response = await callRest(scanRoute, { token, params: { submission_id: submissionId } });
    expect(response.status).toBe(200);
    return (await sheetsOf(new Uint8Array(await response.arrayBuffer()))).map((sheet) => sheet.label);
  };

  /**
   * Which pages of the served scan have the name box painted over (an anonymous batch's scan is pictures
   * of its pages without a text layer: the cover is read from the pixels, grey where the page is white).
   */
  const coveredPages = async (token: string, submissionId: string) => {
    const response = await callRest(scanRoute, { token, params: { submission_id: submissionId } });
    expect(response.status).toBe(200);
    const pdf = new Uint8Array(await response.arrayBuffer());
    const pageCount = (await PDFDocument.load(pdf)).getPageCount();
    const covered: boolean[] = [];
    for (let page = 1; page <= pageCount; page++) {
      const image = (await renderPageGrey(pdf, page, 48))!;
      let sum = 0;
      let count = 0;
      // Inside the box, clear of the sheet's label at its top left.
      for (let row = Math.ceil(0.17 * image.height); row < Math.floor(0.19 * image.height); row++) {
        for (let column = Math.ceil(0.35 * image.width); column < Math.floor(0.55 * image.width); column++) {
          sum += image.data[row * image.width + column]!;
          count++;
        }
      }
      covered.push(sum / count < 200);
    }
    return covered;
  };

  it("sends pages 1, 3 and 4 of a four-page paper for a script whose page 2 was not scanned, to the owner and to a colleague", async () => {
    const { submissionId } = await filedScript(4, [1, 3, 4]);
    for (const reader of [school.teacher, school.otherTeacher]) {
      const sent = await as(reader).exam.marks.forSubmission({ submission_id: submissionId });
      expect(sent).toMatchObject({ scan_page_numbers: [1, 3, 4], paper_page_count: 4 });
      expect(sent.submission.page_count).toBe(3);
    }
    // The scan itself is those three pages, in that order.
    expect(await servedLabels(school.otherTeacher.token, submissionId)).toEqual(["p1", "p3", "p4"]);
    // Another school: 404, nothing sent.
    await expect(as(otherSchool.teacher).exam.marks.forSubmission({ submission_id: submissionId })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("sends null page numbers for a scan uploaded on its own (read in order from page 1), and none before a scan", async () => {
    const template = await (await callRest(postTemplate, { method: "POST", token: school.teacher.token, body: { title: "Uploaded", page_count: 4 } })).json();
    const roster = await createClassWithStudents(database().db, school, 2);
    const batch = await as(school.teacher).exam.batches.create({ template_id: template.id, class_id: roster.class.id });
    const uploaded = await uploadScanInOrder(school.teacher.token, batch.id, await testPile([{ label: "a", code: null }, { label: "b", code: null }]));
    expect(uploaded.status).toBe(200);
    const submissionId = ((await uploaded.json()) as { id: string }).id;
    expect(await as(school.otherTeacher).exam.marks.forSubmission({ submission_id: submissionId })).toMatchObject({ scan_page_numbers: null, paper_page_count: 4 });
    const queue = await as(school.teacher).exam.batches.queue({ batch_id: batch.id });
    const unscanned = queue.submissions.find((submission) => submission.id !== submissionId)!;
    expect(await as(school.teacher).exam.marks.forSubmission({ submission_id: unscanned.id })).toMatchObject({ scan_page_numbers: null, paper_page_count: 4 });
  });

  it("hides the name box on the scan's page that holds it in an anonymous batch, and on none when its page was not scanned", async () => {
    const { templateId, batchId, submissionId } = await filedScript(4, [1, 3, 4]);
    const anonymous = await callRest(patchBatchRoute, { method: "PATCH", token: school.teacher.token, body: { anonymous: true }, params: { batch_id: batchId } });
    expect(anonymous.status).toBe(200);
    const setBox = (page: number) =>
      asService(database().db, (tx) => tx.update(examTemplates).set({ name_box: { page, x: 0.1, y: 0.1, width: 0.5, height: 0.1 } }).where(eq(examTemplates.id, templateId)));
    // The name on page 3 of the paper: the scan's page 2 (page 3 of the paper) is covered, pages 1 and 4 are not.
    await setBox(3);
    expect(await coveredPages(school.otherTeacher.token, submissionId)).toEqual([false, true, false]);
    // The name on page 2, which was not scanned: no page of the scan is covered there.
    await setBox(2);
    expect(await coveredPages(school.otherTeacher.token, submissionId)).toEqual([false, false, false]);
  });

  it("places any subset of a paper's pages, scanned in any order, by their page numbers", async () => {
    const { seed, cases } = fuzzSettings(6);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 6 }).chain((pageCount) =>
          fc.tuple(fc.constant(pageCount), fc.shuffledSubarray(Array.from({ length: pageCount }, (_, index) => index + 1), { minLength: 1 })),
        ),
        async ([pageCount, scanned]) => {
          const { submissionId } = await filedScript(pageCount, scanned);
          const sent = await as(school.teacher).exam.marks.forSubmission({ submission_id: submissionId });
          const inOrder = [...scanned].sort((a, b) => a - b);
          expect(sent).toMatchObject({ scan_page_numbers: inOrder, paper_page_count: pageCount });
          expect(await servedLabels(school.teacher.token, submissionId)).toEqual(inOrder.map((page) => `p${page}`));
        },
      ),
      { seed, numRuns: cases },
    );
  });

  it("the blind second-marking queue places the sampled script's pages the same way, with the paper to mark against and no first mark", async () => {
    const { templateId, batchId, submissionId } = await filedScript(4, [1, 3, 4]);
    const canvas = sampleCanvas();
    await as(school.teacher).exam.templates.save({ template_id: templateId, body: canvas });
    const questionId = canvas.ids.q2;
    await as(school.teacher).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: submissionId, question_id: questionId, awarded_marks: 3.25, comment: "first-comment-x", confirmed: true } });
    await as(school.teacher).exam.moderation.setSample({ batch_id: batchId, body: { submission_ids: [submissionId] } });
    const queue = await as(school.otherTeacher).exam.moderation.queue({ batch_id: batchId });
    expect(queue).toMatchObject({ batch_id: batchId, template_id: templateId, scripts: [{ submission_id: submissionId, scan_page_numbers: [1, 3, 4] }] });
    const text = JSON.stringify(queue);
    for (const leak of ["3.25", "first-comment-x", school.teacher.id]) expect(text).not.toContain(leak);
  });
  it("the student of a released script filed without its page 2 reads its marks beside the pages that hold them", async () => {
    const { templateId, batchId, submissionId } = await filedScript(4, [1, 3, 4]);
    const canvas = sampleCanvas();
    await as(school.teacher).exam.templates.save({ template_id: templateId, body: canvas });
    await as(school.teacher).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: submissionId, question_id: canvas.ids.q2, awarded_marks: 4, confirmed: true } });
    await releaseForTest(database().db, batchId);
    const [script] = await asService(database().db, (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.id, submissionId)));
    const read = await as({ id: script!.student_id! }).student.scripts.get({ submission_id: submissionId });
    const areasOf = (id: string) => read.questions.find((question) => question.id === id)!.areas.map((area) => area.page);
    // sampleCanvas's areas: 1a on paper page 1, 1b on page 2 (not scanned), 2 on page 3 (the scan's second page).
    expect([areasOf(canvas.ids.q1a), areasOf(canvas.ids.q1b), areasOf(canvas.ids.q2)]).toEqual([[1], [], [2]]);
    expect(read.scan.page_count).toBe(3);
  });
});

