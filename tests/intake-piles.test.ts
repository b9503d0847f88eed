/**
 * Class-set intake, server side: a scanned pile uploaded (REST), read by its background job and filed
 * into submissions. Imaging is a stand-in here (tests/support/intake-imaging-double.ts: each test page
 * carries the code its QR would read as); the real pixels-to-code path is tested in
 * tests/intake-imaging*.test.ts and the lead's end-to-end intake test.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asService, asUser } from "../server/db/rls";
import { examScanPiles, examSubmissions, files } from "../server/db/schema";
import { archiveBatch } from "../server/exam/batches";
import { env } from "../server/env";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { processScanPile, readScanPileJob } from "../server/exam/intake/pile-job";
import { uploadPile } from "../server/exam/intake/piles";
import { encodePageCode, newBatchCode } from "../server/exam/intake/print-code";
import { runDueJobs } from "../server/jobs/run";
import { createLocalStorage } from "../server/storage/local";
import { type ObjectStorage, readObjectBytes, useObjectStorage } from "../server/storage/object-storage";
import { createTemplate } from "../server/exam/templates";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { pdfBytes } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { type ImagingDouble, type TestSheet, imagingDouble, sheetsOf, testPile } from "./support/intake-imaging-double";
import { pagesOfPile, pileRow, postPile, printedBatch, submissionRow } from "./support/intake-fixtures";
import { pdfFormAroundBlanks, streamedBody } from "./support/streamed-body";

const BUCKET = "cc.exam.submissions";

describeOnEachDatabase("class-set intake: piles, the reading job and filing", (database) => {
  let school: School;
  let otherSchool: School;
  let templateId: string;
  let storageRoot: string;
  let storage: ObjectStorage;
  let imaging: ImagingDouble;
  const db = () => database().db;

  const storedUnder = (prefix: string) => {
    const folder = path.join(storageRoot, BUCKET, prefix);
    return fs.existsSync(folder) ? fs.readdirSync(folder, { recursive: true }).map(String).filter((name) => name.endsWith(".pdf")) : [];
  };

  /** Uploads a pile over REST (202) and returns its id. */
  async function upload(batchId: string, sheets: TestSheet[], filename = "pile.pdf") {
    const response = await postPile(school.teacher.token, batchId, await testPile(sheets), { filename });
    expect(response.status).toBe(202);
    return (await response.json()) as { id: string; status: string };
  }

  /** What a submission's assembled scan holds: its sheets' labels and rotations, in order. */
  async function scanOf(submissionId: string) {
    const row = await submissionRow(db(), submissionId);
    if (!row?.scan_url) return null;
    return sheetsOf(new Uint8Array(await readObjectBytes(storage, BUCKET, row.scan_url)));
  }

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-intake-"));
    storage = useObjectStorage(createLocalStorage(storageRoot));
    imaging = imagingDouble();
    setIntakeImaging(imaging);
    school = await createSchool(db(), "Intake");
    otherSchool = await createSchool(db(), "Elsewhere");
    templateId = (await createTemplate(db(), school.teacher.id, { title: "Mock", page_count: 3 })).id;
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  describe("upload", () => {
    it("answers 202 with the queued pile, stores it under exam-piles/, and queues its job in the same transaction", async () => {
      const { batch, code } = await printedBatch(db(), school, templateId);
      const response = await postPile(school.teacher.token, batch.id, await testPile([{ label: "a", code: code(1, 1) }]), { filename: "Set A.pdf" });
      expect(response.status).toBe(202);
      const pile = await response.json();
      expect(pile).toMatchObject({ batch_id: batch.id, original_name: "Set A.pdf", status: "queued", page_count: null, pages_read: 0 });
      expect(Object.keys(pile).sort()).toEqual(["batch_id", "byte_size", "created_at", "id", "original_name", "page_count", "pages_read", "status"]);
      expect(storedUnder(`exam-piles/${batch.id}`)).toHaveLength(1);
      const [stored] = await asService(db(), (tx) => tx.select().from(files).innerJoin(examScanPiles, eq(examScanPiles.file_id, files.id)).where(eq(examScanPiles.id, pile.id)));
      expect(stored!.files).toMatchObject({ bucket: BUCKET, owner_id: school.teacher.id, byte_size: pile.byte_size });
      expect(stored!.files.storage_key).toMatch(new RegExp(`^exam-piles/${batch.id}/[0-9a-f-]{36}\\.pdf$`));

      expect(await runDueJobs(db(), { kinds: [readScanPileJob] })).toBe(1);
      expect(await pileRow(db(), pile.id)).toMatchObject({ status: "done", page_count: 1, pages_read: 1 });
    });

    it("answers 404 outside the school or for an unknown batch, 403 to a colleague, 409 once archived; storing nothing", async () => {
      const { batch } = await printedBatch(db(), school, templateId);
      const pdf = await testPile([{ label: "a", code: null }]);
      expect((await postPile(otherSchool.teacher.token, batch.id, pdf)).status).toBe(404);
      expect((await postPile(school.student.token, batch.id, pdf)).status).toBe(404);
      expect((await postPile(school.teacher.token, crypto.randomUUID(), pdf)).status).toBe(404);
      expect((await postPile(school.teacher.token, "not-an-id", pdf)).status).toBe(404);
      const colleague = await postPile(school.otherTeacher.token, batch.id, pdf);
      expect(colleague.status).toBe(403);
      await asUser(db(), school.teacher.id, (tx) => archiveBatch(tx, school.teacher.id, batch.id));
      const archived = await postPile(school.teacher.token, batch.id, pdf);
      expect(archived.status).toBe(409);
      expect((await archived.json()).detail).toMatch(/archived/);
      expect(storedUnder(`exam-piles/${batch.id}`)).toEqual([]);
    });

    it("refuses what is not a PDF (415) and a body that is not multipart (415)", async () => {
      const { batch } = await printedBatch(db(), school, templateId);
      expect((await postPile(school.teacher.token, batch.id, pdfBytes(), { contentType: "image/png" })).status).toBe(415);
      const notPdf = await postPile(school.teacher.token, batch.id, Buffer.from("GIF89a not a pdf"));
      expect(notPdf.status).toBe(415);
      expect((await notPdf.json()).detail).toBe("The scanned pile is not a PDF file: it may be damaged, or another kind of file renamed .pdf");
      const raw = await (
        await import("../app/api/exam/batches/[batch_id]/piles/route")
      ).POST(new Request("http://localhost/x", { method: "POST", headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": "application/pdf" }, body: Buffer.from(pdfBytes()) }), {
        params: Promise.resolve({ batch_id: batch.id }),
      });
      expect(raw.status).toBe(415);
      expect(storedUnder(`exam-piles/${batch.id}`)).toEqual([]);
    });

    it("refuses a declared size over MAX_PILE_BYTES at once (413), naming the limit in MB", async () => {
      const { batch } = await printedBatch(db(), school, templateId);
      const request = new Request("http://localhost/x", {
        method: "POST",
        headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": "multipart/form-data; boundary=x", "content-length": String(2 * 1024 * 1024 * 1024) },
        body: "--x--",
      });
      const { POST } = await import("../app/api/exam/batches/[batch_id]/piles/route");
      const response = await POST(request, { params: Promise.resolve({ batch_id: batch.id }) });
      expect(response.status).toBe(413);
      expect((await response.json()).detail).toBe("The scanned pile is too large: the largest accepted is 1024 MB");
    });
    it("refuses a pile over the limit while it streams (413), cancelling the sender's stream and storing nothing", async () => {
      const { batch } = await printedBatch(db(), school, templateId);
      const form = pdfFormAroundBlanks();
      const { body, sent, cancelled } = streamedBody(form.head, 8 * 1024 * 1024, form.tail);
      const maxBytes = 1024 * 1024;
      const upload = uploadPile(db(), school.teacher.id, batch.id, { contentType: form.contentType, contentLength: null, body }, { maxBytes });
      await expect(upload).rejects.toMatchObject({ code: "too_large", message: "The scanned pile is too large: the largest accepted is 1 MB" });
      expect(cancelled()).toBe(true);
      expect(sent()).toBeLessThan(maxBytes + 1024 * 1024);
      expect(storedUnder(`exam-piles/${batch.id}`)).toEqual([]);
      expect(await asService(db(), (tx) => tx.select().from(examScanPiles).where(eq(examScanPiles.batch_id, batch.id)))).toEqual([]);
    });
  });

  describe("filing", () => {
    it("files a shuffled pile exactly: duplicate, missing page, spare copy, foreign page, torn corner, upside-down page, unreadable script", async () => {
      const { batch, code, slots } = await printedBatch(db(), school, templateId, { students: 3, spares: 1 });
      const foreign = encodePageCode({ batchCode: newBatchCode(), scriptNumber: 1, page: 1 });
      const pile = await upload(
        batch.id,
        [
          { label: "s3p3", code: code(3, 3) },
          { label: "s1p2", code: code(1, 2) },
          { label: "s4p1", code: code(4, 1) },
          { label: "s2p1", code: code(2, 1) },
          { label: "s2p2-torn", code: null },
          { label: "s2p3", code: code(2, 3) },
          { label: "s1p1", code: code(1, 1) },
          { label: "foreign", code: foreign },
          { label: "s4p3", code: code(4, 3) },
          { label: "s1p3-upside-down", code: code(1, 3), turn: 180 },
          { label: "s3p1", code: code(3, 1) },
          { label: "s1p2-again", code: code(1, 2) },
          { label: "s4p2", code: code(4, 2) },
          { label: "s17p1", code: code(17, 1) },
          { label: "u1", code: null },
          { label: "u2", code: "MB1:damaged" },
          { label: "u3", code: "https://example.org/not-ours" },
        ],
        "Set A.pdf",
      );
      expect(await runDueJobs(db(), { kinds: [readScanPileJob] })).toBe(1);
      expect(await pileRow(db(), pile.id)).toMatchObject({ status: "done", page_count: 17, pages_read: 17, failure: null });

      const pages = await pagesOfPile(db(), pile.id);
      const byPilePage = (n: number) => pages[n - 1]!;
      expect(pages.map((page) => page.placement)).toEqual([
        "filed", "filed", "filed", "filed", "filed", "filed", "filed", "refused", "filed", "filed", "filed", "duplicate", "filed", "refused", "filed", "filed", "filed",
      ]);
      expect(byPilePage(12)).toMatchObject({ duplicate_of: byPilePage(2).id, note: "Same page as pile page 2 of Set A.pdf: kept once", submission_id: null });
      expect(byPilePage(8).note).toBe("Printed for another batch: not filed");
      expect(byPilePage(14).note).toBe("Script 17 was never printed for this batch");

      expect(await scanOf(slots[0]!.id)).toEqual([
        { label: "s1p1", rotation: 0 },
        { label: "s1p2", rotation: 0 },
        { label: "s1p3-upside-down", rotation: 180 },
      ]);
      expect(await scanOf(slots[1]!.id)).toEqual([
        { label: "s2p1", rotation: 0 },
        { label: "s2p2-torn", rotation: 0 },
        { label: "s2p3", rotation: 0 },
      ]);
      // Page 2 of script 3 is missing: its pages keep their positions (1 and 3).
      expect(await scanOf(slots[2]!.id)).toEqual([
        { label: "s3p1", rotation: 0 },
        { label: "s3p3", rotation: 0 },
      ]);
      expect([byPilePage(11).page_number, byPilePage(1).page_number]).toEqual([1, 3]);
      for (const slot of slots) {
        expect(await submissionRow(db(), slot.id)).toMatchObject({ status: "matched", matching_method: "qr", student_id: slot.student_id });
      }
      expect((await submissionRow(db(), slots[0]!.id))!.qr_code).toBe(code(1, 1).split(":").slice(0, 3).join(":"));

      const studentless = await asService(db(), (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.batch_id, batch.id)));
      const spare = studentless.find((row) => row.qr_code?.endsWith(":4"))!;
      expect(spare).toMatchObject({ student_id: null, status: "unmatched", matching_method: "qr", page_count: 3 });
      expect(await scanOf(spare.id)).toEqual(["s4p1", "s4p2", "s4p3"].map((label) => ({ label, rotation: 0 })));
      const unreadable = studentless.find((row) => row.student_id === null && row.qr_code === null)!;
      expect(unreadable).toMatchObject({ status: "unmatched", matching_method: "qr", page_count: 3 });
      expect(await scanOf(unreadable.id)).toEqual(["u1", "u2", "u3"].map((label) => ({ label, rotation: 0 })));
      expect(studentless).toHaveLength(5);
      // Every page of the pile is kept as a one-page PDF where a restart would write it again.
      expect(storedUnder(`exam-pages/${batch.id}/${pile.id}`).sort()).toEqual(Array.from({ length: 17 }, (_, i) => `${i + 1}.pdf`).sort());
    });

    it("a later pile fills the missing page and sets aside a page filed before as a duplicate", async () => {
      const { batch, code, slots } = await printedBatch(db(), school, templateId, { students: 1, spares: 0 });
      const first = await upload(batch.id, [{ label: "p1", code: code(1, 1) }, { label: "p3", code: code(1, 3) }], "first.pdf");
      await runDueJobs(db(), { kinds: [readScanPileJob] });
      const second = await upload(batch.id, [{ label: "p2", code: code(1, 2) }, { label: "p1-again", code: code(1, 1) }], "second.pdf");
      await runDueJobs(db(), { kinds: [readScanPileJob] });
      expect(await scanOf(slots[0]!.id)).toEqual(["p1", "p2", "p3"].map((label) => ({ label, rotation: 0 })));
      const [, again] = await pagesOfPile(db(), second.id);
      expect(again).toMatchObject({ placement: "duplicate", duplicate_of: (await pagesOfPile(db(), first.id))[0]!.id, note: "Same page as pile page 1 of first.pdf: kept once" });
    });

    it("resumes after a crash mid-pile from the first page not recorded, and files the whole pile once", async () => {
      const { batch, code, slots } = await printedBatch(db(), school, templateId, { students: 2, spares: 0 });
      const pile = await upload(batch.id, [1, 2, 3].flatMap((page) => [1, 2].map((script) => ({ label: `s${script}p${page}`, code: code(script, page) }))));
      imaging.readsFrom.length = 0;
      imaging.crashAfter(4);
      await expect(processScanPile(db(), pile.id, imaging)).rejects.toThrow("simulated crash");
      expect(await pileRow(db(), pile.id)).toMatchObject({ status: "reading", pages_read: 4, page_count: 6 });
      expect((await pagesOfPile(db(), pile.id)).map((page) => page.placement)).toEqual(["reading", "reading", "reading", "reading"]);

      await processScanPile(db(), pile.id, imaging);
      expect(imaging.readsFrom).toEqual([1, 5]);
      expect(await pileRow(db(), pile.id)).toMatchObject({ status: "done", pages_read: 6 });
      expect((await pagesOfPile(db(), pile.id)).map((page) => page.placement)).toEqual(Array(6).fill("filed"));
      expect(await scanOf(slots[1]!.id)).toEqual(["s2p1", "s2p2", "s2p3"].map((label) => ({ label, rotation: 0 })));
      // Its job, run after the crash, finds the pile done and changes nothing.
      await runDueJobs(db(), { kinds: [readScanPileJob] });
      expect(imaging.readsFrom).toEqual([1, 5]);
    });

    it("files two piles of one batch run at once one after the other: every page in one place, a shared page kept once", async () => {
      const { batch, code, slots } = await printedBatch(db(), school, templateId, { students: 2, spares: 0 });
      const a = await upload(batch.id, [{ label: "a-s1p1", code: code(1, 1) }, { label: "a-s1p2", code: code(1, 2) }, { label: "a-s2p1", code: code(2, 1) }], "a.pdf");
      const b = await upload(batch.id, [{ label: "b-s1p1", code: code(1, 1) }, { label: "b-s1p3", code: code(1, 3) }, { label: "b-s2p2", code: code(2, 2) }], "b.pdf");
      await Promise.all([processScanPile(db(), a.id, imaging), processScanPile(db(), b.id, imaging)]);
      const pages = [...(await pagesOfPile(db(), a.id)), ...(await pagesOfPile(db(), b.id))];
      expect(pages.filter((page) => page.placement === "duplicate")).toHaveLength(1);
      expect(pages.filter((page) => page.placement === "filed")).toHaveLength(5);
      const script1 = await scanOf(slots[0]!.id);
      expect(script1!.map((page) => page.label!.slice(2))).toEqual(["s1p1", "s1p2", "s1p3"]);
      expect(await scanOf(slots[1]!.id)).toEqual(["a-s2p1", "b-s2p2"].map((label) => ({ label, rotation: 0 })));
    });

    it("reads a long pile in slices, so another school's pile queued after it is done first; the long one is filed whole", async () => {
      await runDueJobs(db(), { kinds: [readScanPileJob] }); // the jobs of piles the tests above ran by hand
      const { batch: longBatch, code, slots } = await printedBatch(db(), school, templateId, { students: 1, spares: 0 });
      const otherTemplate = (await createTemplate(db(), otherSchool.teacher.id, { title: "Other", page_count: 1 })).id;
      const { batch: shortBatch, code: otherCode } = await printedBatch(db(), otherSchool, otherTemplate, { students: 1, spares: 0 });
      const pages = 2 * env().PILE_SLICE_PAGES + 5;
      const sheets: TestSheet[] = Array.from({ length: pages }, (_, index) => ({ label: `l${index + 1}`, code: index < 3 ? code(1, index + 1) : null }));
      const long = await upload(longBatch.id, sheets);
      const shortResponse = await postPile(otherSchool.teacher.token, shortBatch.id, await testPile([{ label: "o1", code: otherCode(1, 1) }]));
      const short = await shortResponse.json();
      // One slot, as a process with JOBS_CONCURRENCY=1: jobs run one after the other.
      expect(await runDueJobs(db(), { kinds: [readScanPileJob] })).toBe(4);
      const [longRow, shortRow] = [await pileRow(db(), long.id), await pileRow(db(), short.id)];
      expect(longRow).toMatchObject({ status: "done", page_count: pages, pages_read: pages });
      expect(shortRow).toMatchObject({ status: "done", page_count: 1 });
      expect(shortRow.finished_at!.getTime()).toBeLessThan(longRow.finished_at!.getTime());
      expect((await pagesOfPile(db(), long.id)).map((page) => page.pile_page)).toEqual(sheets.map((_, index) => index + 1));
      expect(await scanOf(slots[0]!.id)).toEqual(["l1", "l2", "l3"].map((label) => ({ label, rotation: 0 })));
    });

    it("keeps a pile that cannot be opened as failed, with the teacher's reason, its file kept; no retry", async () => {
      const { batch } = await printedBatch(db(), school, templateId, { students: 1, spares: 0 });
      await runDueJobs(db(), { kinds: [readScanPileJob] }); // the jobs of piles the tests above ran by hand
      const response = await postPile(school.teacher.token, batch.id, pdfBytes());
      const pile = await response.json();
      expect(await runDueJobs(db(), { kinds: [readScanPileJob] })).toBe(1);
      expect(await pileRow(db(), pile.id)).toMatchObject({ status: "failed", failure: "The pile could not be opened: the PDF is damaged" });
      expect(storedUnder(`exam-piles/${batch.id}`)).toHaveLength(1);
      expect(await runDueJobs(db(), { kinds: [readScanPileJob] })).toBe(0);
      const status = await createCaller({ db: db(), user: { id: school.teacher.id } }).exam.intake.status({ batch_id: batch.id });
      expect(status.piles).toEqual([expect.objectContaining({ id: pile.id, status: "failed", failure: "The pile could not be opened: the PDF is damaged" })]);
    });

    it("retries any other failure, the pile still reading, and fails the pile with a reason for the teacher on the last attempt", async () => {
      const { batch, code } = await printedBatch(db(), school, templateId, { students: 1, spares: 0 });
      const pile = await upload(batch.id, [{ label: "p1", code: code(1, 1) }]);
      const broken = { ...imaging, readPile: () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error("disk on fire")) }) }) };
      setIntakeImaging(broken);
      try {
        const context = { db: db(), jobId: crypto.randomUUID() };
        await expect(readScanPileJob.run({ pile_id: pile.id }, { ...context, attempt: 1 })).rejects.toThrow("disk on fire");
        expect(await pileRow(db(), pile.id)).toMatchObject({ status: "reading", failure: null });
        await expect(readScanPileJob.run({ pile_id: pile.id }, { ...context, attempt: readScanPileJob.maxAttempts })).rejects.toThrow("disk on fire");
        expect(await pileRow(db(), pile.id)).toMatchObject({
          status: "failed",
          failure: "The pile could not be read because of an unexpected error on the server; upload it again, or ask your administrator",
        });
      } finally {
        setIntakeImaging(imaging);
      }
    });
  });
});
