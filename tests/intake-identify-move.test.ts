/**
 * Class-set intake after filing: the progress of a batch's intake, the list of its pages, identifying a
 * script (assignScan) and moving a page by hand, through tRPC and REST with a real database. Imaging is
 * a stand-in here (tests/support/intake-imaging-double.ts); the real pixels-to-code path is tested in
 * tests/intake-imaging*.test.ts and the lead's end-to-end intake test.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as intakeRoute } from "../app/api/exam/batches/[batch_id]/intake/route";
import { GET as scanPagesRoute } from "../app/api/exam/batches/[batch_id]/scan-pages/route";
import { POST as moveRoute } from "../app/api/exam/scan-pages/[page_id]/move/route";
import { asService, asUser } from "../server/db/rls";
import { examSubmissions } from "../server/db/schema";
import { archiveBatch } from "../server/exam/batches";
import { createTemplate } from "../server/exam/templates";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { processScanPile } from "../server/exam/intake/pile-job";
import { encodePageCode, newBatchCode } from "../server/exam/intake/print-code";
import { createLocalStorage } from "../server/storage/local";
import { type ObjectStorage, readObjectBytes, useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { callRest, multipartBody, pdfBytes, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileJsonToken } from "./support/hostile-input";
import { type ImagingDouble, type TestSheet, imagingDouble, sheetsOf, testPile } from "./support/intake-imaging-double";
import { pagesOfPile, postPile, printedBatch, submissionRow } from "./support/intake-fixtures";

const BUCKET = "cc.exam.submissions";

describeOnEachDatabase("class-set intake: progress, pages, identify and move", (database) => {
  let school: School;
  let otherSchool: School;
  let templateId: string;
  let storage: ObjectStorage;
  let storageRoot: string;
  let imaging: ImagingDouble;
  const db = () => database().db;
  const as = (user: { id: string }) => createCaller({ db: db(), user: { id: user.id } });

  /** A printed batch with one pile uploaded and filed. */
  async function filedBatch(sheets: (code: (script: number, page: number) => string) => TestSheet[], counts = { students: 3, spares: 1 }) {
    const printed = await printedBatch(db(), school, templateId, counts);
    const response = await postPile(school.teacher.token, printed.batch.id, await testPile(sheets(printed.code)), { filename: "Set A.pdf" });
    expect(response.status).toBe(202);
    const pile = await response.json();
    await processScanPile(db(), pile.id, imaging);
    return { ...printed, pileId: pile.id as string, pages: await pagesOfPile(db(), pile.id) };
  }

  async function labelsOf(submissionId: string) {
    const row = await submissionRow(db(), submissionId);
    if (!row?.scan_url) return null;
    return (await sheetsOf(new Uint8Array(await readObjectBytes(storage, BUCKET, row.scan_url)))).map((page) => page.label);
  }

  const studentless = (batchId: string) =>
    asService(db(), (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.batch_id, batchId))).then((rows) => rows.filter((row) => row.student_id === null));

  const move = (token: string, pageId: string, body: unknown) => callRest(moveRoute, { method: "POST", token, body, params: { page_id: pageId } });

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-intake-move-"));
    storage = useObjectStorage(createLocalStorage(storageRoot));
    imaging = imagingDouble();
    setIntakeImaging(imaging);
    school = await createSchool(db(), "Identify");
    otherSchool = await createSchool(db(), "Elsewhere");
    templateId = (await createTemplate(db(), school.teacher.id, { title: "Mock", page_count: 2 })).id;
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  describe("progress and the list of pages", () => {
    it("counts where the pages went and lists scripts to identify, missing pages and pages set aside", async () => {
      const foreign = encodePageCode({ batchCode: newBatchCode(), scriptNumber: 1, page: 1 });
      const { batch, slots, pileId } = await filedBatch((code) => [
        { label: "s1p1", code: code(1, 1) },
        { label: "s1p2", code: code(1, 2) },
        { label: "s2p2", code: code(2, 2) },
        { label: "s4p1", code: code(4, 1) },
        { label: "s1p1-again", code: code(1, 1) },
        { label: "foreign", code: foreign },
      ]);
      const status = await as(school.teacher).exam.intake.status({ batch_id: batch.id });
      expect(status.piles).toEqual([
        expect.objectContaining({
          id: pileId,
          name: "Set A.pdf",
          status: "done",
          page_count: 6,
          pages_read: 6,
          failure: null,
          filed: 4,
          duplicates: 1,
          refused: 1,
          // A code of no batch of this installation: nothing is said of whose it is.
          refusals: [{ reason: "Printed for a batch that is not in this school's Markbook", pages: 1 }],
          headline: "4 of 6 pages filed; 1 refused, 1 scanned twice",
        }),
      ]);
      expect(status.counts).toEqual({ pages_uploaded: 6, pages_read: 6, filed_to_students: 3, in_scripts_to_identify: 1, duplicates: 1, refused: 1 });
      const [spare] = await studentless(batch.id);
      const pages = await pagesOfPile(db(), pileId);
      expect(status.scripts_to_identify).toEqual([{ submission_id: spare!.id, page_count: 1, first_page_id: pages[3]!.id }]);
      expect(status.missing_pages).toEqual(
        expect.arrayContaining([
          { submission_id: slots[1]!.id, student_name: slots[1]!.student_name, script_number: slots[1]!.script_number, missing_positions: [1] },
          { submission_id: spare!.id, student_name: null, script_number: spare!.script_number, missing_positions: [2] },
        ]),
      );
      expect(status.missing_pages).toHaveLength(2);
      expect(status.set_aside).toEqual([
        { page_id: pages[4]!.id, placement: "duplicate", pile_name: "Set A.pdf", pile_page: 5, note: "Same page as pile page 1 of Set A.pdf: kept once" },
        { page_id: pages[5]!.id, placement: "refused", pile_name: "Set A.pdf", pile_page: 6, note: "Printed for a batch that is not in this school's Markbook: not filed" },
      ]);

      // The same over REST, and for a colleague (staff of the school read it).
      const rest = await callRest(intakeRoute, { token: school.otherTeacher.token, params: { batch_id: batch.id } });
      expect(rest.status).toBe(200);
      expect((await rest.json()).counts).toEqual(status.counts);

      const list = await callRest(scanPagesRoute, { token: school.teacher.token, params: { batch_id: batch.id } });
      expect(list.status).toBe(200);
      const listed = (await list.json()).pages;
      expect(listed.map((page: { placement: string }) => page.placement)).toEqual(["filed", "filed", "filed", "filed", "duplicate", "refused"]);
      expect(listed[2]).toMatchObject({ pile_id: pileId, pile_name: "Set A.pdf", pile_page: 3, submission_id: slots[1]!.id, student_name: slots[1]!.student_name, page_number: 2, rotation: 0, script_number: 2, printed_page: 2 });
      expect((await as(school.teacher).exam.intake.pages({ batch_id: batch.id })).pages).toHaveLength(6);
    });

    it("answers 404 to another school, to a student, and for an id that names nothing", async () => {
      const { batch } = await printedBatch(db(), school, templateId);
      for (const route of [intakeRoute, scanPagesRoute]) {
        expect((await callRest(route, { token: otherSchool.teacher.token, params: { batch_id: batch.id } })).status).toBe(404);
        expect((await callRest(route, { token: school.student.token, params: { batch_id: batch.id } })).status).toBe(404);
        expect((await callRest(route, { token: school.teacher.token, params: { batch_id: "../x" } })).status).toBe(404);
      }
      await expect(as(otherSchool.teacher).exam.intake.status({ batch_id: batch.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(as(otherSchool.teacher).exam.intake.pages({ batch_id: batch.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    });
  });

  describe("identify", () => {
    it("gives a spare copy's pages to a student page by page: the script row goes, the student's scan is rebuilt, later pages follow", async () => {
      const { batch, slots, code } = await filedBatch((code) => [
        { label: "s4p2", code: code(4, 2) },
        { label: "s1p1", code: code(1, 1) },
      ]);
      const [spare] = await studentless(batch.id);
      const slot = slots[2]!;
      const assigned = await as(school.teacher).exam.submissions.assign({ submission_id: spare!.id, student_id: slot.student_id! });
      expect(assigned).toMatchObject({ id: slot.id, student_name: slot.student_name, status: "matched", page_count: 1, matching_method: "manual" });
      expect(await submissionRow(db(), spare!.id)).toBeUndefined();
      expect(await labelsOf(slot.id)).toEqual(["s4p2"]);

      // A later pile's page 1 of the spare copy goes to the same student; its page 2 again is a duplicate.
      const response = await postPile(school.teacher.token, batch.id, await testPile([{ label: "s4p1", code: code(4, 1) }, { label: "s4p2-again", code: code(4, 2) }]));
      const later = await response.json();
      await processScanPile(db(), later.id, imaging);
      expect(await labelsOf(slot.id)).toEqual(["s4p1", "s4p2"]);
      expect((await pagesOfPile(db(), later.id)).map((page) => page.placement)).toEqual(["filed", "duplicate"]);
      expect(await studentless(batch.id)).toEqual([]);
    });

    it("carries the script's marks to the student, whose submission is then being marked", async () => {
      const template = await as(school.teacher).exam.templates.create({ title: "Marked mock", page_count: 3 });
      const canvas = sampleCanvas();
      await as(school.teacher).exam.templates.save({ template_id: template.id, body: { ...canvas, status: "ready" } });
      const { batch, code, slots } = await printedBatch(db(), school, template.id, { students: 1, spares: 1 });
      const response = await postPile(school.teacher.token, batch.id, await testPile([{ label: "s2p1", code: code(2, 1) }]));
      await processScanPile(db(), (await response.json()).id, imaging);
      const [spare] = await studentless(batch.id);
      const mark = await as(school.teacher).exam.marks.upsert({ mark_id: crypto.randomUUID(), body: { submission_id: spare!.id, question_id: canvas.ids.q2, awarded_marks: 4 } });
      const assigned = await as(school.teacher).exam.submissions.assign({ submission_id: spare!.id, student_id: slots[0]!.student_id! });
      expect(assigned).toMatchObject({ id: slots[0]!.id, status: "marking", page_count: 1 });
      const marks = await as(school.teacher).exam.marks.forSubmission({ submission_id: slots[0]!.id });
      expect(marks.marks.map((entry) => entry.id)).toEqual([mark.id]);
    });

    it("refuses (409) a student whose script holds the same page, naming it, and one whose scan was uploaded on its own", async () => {
      const { batch, slots } = await filedBatch((code) => [
        { label: "s4p1", code: code(4, 1) },
        { label: "s1p1", code: code(1, 1) },
      ]);
      const [spare] = await studentless(batch.id);
      const clash = callRest((await import("../app/api/exam/submissions/[submission_id]/assign/route")).POST, {
        method: "POST",
        token: school.teacher.token,
        body: { student_id: slots[0]!.student_id },
        params: { submission_id: spare!.id },
      });
      const refused = await clash;
      expect(refused.status).toBe(409);
      expect((await refused.json()).detail).toBe(`${slots[0]!.student_name}'s script already has page 1: move the pages that do not belong there first`);

      const form = multipartBody([
        { name: "student_id", value: slots[1]!.student_id! },
        { name: "file", filename: "single.pdf", bytes: pdfBytes() },
      ]);
      const { POST: scans } = await import("../app/api/exam/batches/[batch_id]/scans/route");
      const single = await scans(
        new Request(`http://localhost/api/exam/batches/${batch.id}/scans`, { method: "POST", headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": form.contentType }, body: form.body }),
        { params: Promise.resolve({ batch_id: batch.id }) },
      );
      expect(single.status).toBe(200);
      await expect(as(school.teacher).exam.submissions.assign({ submission_id: spare!.id, student_id: slots[1]!.student_id! })).rejects.toMatchObject({
        code: "CONFLICT",
        message: `${slots[1]!.student_name} already has a scan uploaded on its own: it is not replaced by an assignment`,
      });
      expect(await labelsOf(spare!.id)).toEqual(["s4p1"]);
    });
  });

  describe("move a page", () => {
    it("moves a duplicate into a new script, a page between students, and empties a script (deleted) and a student's submission (no scan yet)", async () => {
      const { slots, pages } = await filedBatch((code) => [
        { label: "s1p1", code: code(1, 1) },
        { label: "s1p2", code: code(1, 2) },
        { label: "s1p1-again", code: code(1, 1) },
        { label: "s2p1", code: code(2, 1) },
      ]);
      const [dup, s2p1] = [pages[2]!, pages[3]!];
      const toNew = await move(school.teacher.token, dup.id, { new_script: true });
      expect(toNew.status).toBe(200);
      const moved = await toNew.json();
      expect(moved).toMatchObject({ page: { id: dup.id, page_number: 1 }, submission: { student_id: null, status: "unmatched", page_count: 1 }, left: null });
      expect(await labelsOf(moved.submission.id)).toEqual(["s1p1-again"]);

      // A page of student 2 goes to student 3 at position 2; student 2 is left with no pages.
      const between = await as(school.teacher).exam.intake.movePage({ page_id: s2p1.id, student_id: slots[2]!.student_id!, page_number: 2 });
      expect(between.submission).toMatchObject({ id: slots[2]!.id, status: "matched", page_count: 1 });
      expect(between.left).toMatchObject({ id: slots[1]!.id, scan_url: null, page_count: null, status: "absent" });
      expect(await labelsOf(slots[2]!.id)).toEqual(["s2p1"]);

      // The new script's only page moves to student 2 at the first free position: the script is deleted.
      const back = await as(school.teacher).exam.intake.movePage({ page_id: dup.id, submission_id: slots[1]!.id });
      expect(back).toMatchObject({ page: { page_number: 1 }, left: null });
      expect(await submissionRow(db(), moved.submission.id)).toBeUndefined();
      expect(await labelsOf(slots[1]!.id)).toEqual(["s1p1-again"]);
      expect(await labelsOf(slots[0]!.id)).toEqual(["s1p1", "s1p2"]);
    });

    it("refuses a move to a page beyond the paper (400, saying so) and leaves the page where it was, whatever the page asked for", async () => {
      const { slots, pages } = await filedBatch((code) => [
        { label: "s1p1", code: code(1, 1) },
        { label: "s1p2", code: code(1, 2) },
        { label: "s1p1-again", code: code(1, 1) },
      ]);
      const dup = pages[2]!;
      const { seed, cases } = fuzzSettings(20);
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 3, max: 999 }), async (page) => {
          const reply = await move(school.teacher.token, dup.id, { submission_id: slots[1]!.id, page_number: page });
          expect(reply.status).toBe(400);
          expect((await reply.json()).detail).toBe(`Page ${page} is not a page of this 2-page paper`);
        }),
        { seed, numRuns: cases },
      );
      // A script holding every page of the paper takes no further page at the first free position either (409).
      const full = await move(school.teacher.token, dup.id, { submission_id: slots[0]!.id });
      expect(full.status).toBe(409);
      expect((await full.json()).detail).toBe(`${slots[0]!.student_name}'s script already has all 2 pages of the paper: move one of them first`);
      expect((await pagesOfPile(db(), dup.pile_id)).find((page) => page.id === dup.id)).toMatchObject({ placement: "duplicate", submission_id: null });
    });

    it("files a pile page whose code names a page beyond the paper nowhere: it is refused with a sentence, not counted as missing pages", async () => {
      const { pages } = await filedBatch((code) => [
        { label: "s1p1", code: code(1, 1) },
        { label: "s1p999", code: code(1, 999) },
      ]);
      expect(pages[1]).toMatchObject({ placement: "refused", submission_id: null, page_number: null, note: "Page 999 is not a page of this 2-page paper: not filed" });
    });

    it("refuses a refused page, a taken position and a page still being read (409); a colleague 403; another school 404; an archived batch 409", async () => {
      const foreign = encodePageCode({ batchCode: newBatchCode(), scriptNumber: 1, page: 1 });
      const { batch, slots, pages } = await filedBatch((code) => [
        { label: "s1p1", code: code(1, 1) },
        { label: "foreign", code: foreign },
        { label: "s2p1", code: code(2, 1) },
      ]);
      const refused = await move(school.teacher.token, pages[1]!.id, { new_script: true });
      expect(refused.status).toBe(409);
      expect((await refused.json()).detail).toBe("This page was printed for another batch: it cannot be filed in this one");
      const taken = await move(school.teacher.token, pages[2]!.id, { submission_id: slots[0]!.id, page_number: 1 });
      expect(taken.status).toBe(409);
      expect((await taken.json()).detail).toBe(`${slots[0]!.student_name}'s script already has a page 1: move that page first`);
      expect((await move(school.otherTeacher.token, pages[2]!.id, { new_script: true })).status).toBe(403);
      expect((await move(otherSchool.teacher.token, pages[2]!.id, { new_script: true })).status).toBe(404);
      expect((await move(school.student.token, pages[2]!.id, { new_script: true })).status).toBe(404);
      expect((await move(school.teacher.token, crypto.randomUUID(), { new_script: true })).status).toBe(404);
      // A submission of another batch is not a place in this one.
      const other = await printedBatch(db(), school, templateId);
      expect((await move(school.teacher.token, pages[2]!.id, { submission_id: other.slots[0]!.id })).status).toBe(404);
      expect((await move(school.teacher.token, pages[2]!.id, { student_id: other.roster.students[0]!.id })).status).toBe(400);
      await asUser(db(), school.teacher.id, (tx) => archiveBatch(tx, school.teacher.id, batch.id));
      const archived = await move(school.teacher.token, pages[2]!.id, { new_script: true });
      expect(archived.status).toBe(409);
      expect(await labelsOf(slots[1]!.id)).toEqual(["s2p1"]);

      const reading = await printedBatch(db(), school, templateId);
      const response = await postPile(school.teacher.token, reading.batch.id, await testPile([{ label: "a", code: reading.code(1, 1) }, { label: "b", code: reading.code(1, 2) }]));
      const pile = await response.json();
      imaging.crashAfter(1);
      await expect(processScanPile(db(), pile.id, imaging)).rejects.toThrow("simulated crash");
      const [stillReading] = await pagesOfPile(db(), pile.id);
      expect(stillReading!.placement).toBe("reading");
      const early = await move(school.teacher.token, stillReading!.id, { new_script: true });
      expect(early.status).toBe(409);
      expect((await early.json()).detail).toBe("This page's pile is still being read: move the page once the pile is filed");
    });

    it("answers 400 for no target or two, and for hostile values (never a 5xx)", async () => {
      const { slots, pages } = await filedBatch((code) => [{ label: "s1p1", code: code(1, 1) }]);
      const page = pages[0]!;
      const none = await move(school.teacher.token, page.id, {});
      expect(none.status).toBe(400);
      expect((await none.json()).detail).toBe("Choose where the page goes: exactly one of submission_id, student_id or new_script");
      expect((await move(school.teacher.token, page.id, { new_script: true, student_id: slots[1]!.student_id })).status).toBe(400);
      expect((await move(school.teacher.token, page.id, { new_script: false })).status).toBe(400);

      const { seed } = fuzzSettings(40);
      await fc.assert(
        fc.asyncProperty(fc.constantFrom("submission_id", "student_id", "new_script", "page_number"), hostileJsonToken, async (field, token) => {
          const response = await move(school.teacher.token, page.id, `{"${field}":${token}}`);
          // {"new_script":true} is the one valid body among them: the page moves to a new script.
          if (field === "new_script" && token === "true") {
            expect(response.status).toBe(200);
          } else {
            expect(response.status).toBe(400);
            expect(typeof (await response.json()).detail).toBe("string");
          }
        }),
        { seed, numRuns: 40 },
      );
    });
  });
});
