/**
 * Piles dropped where they do not belong (issue 33, items 12 and 13):
 * - a class's pile uploaded as one student's scan ("In order" or to a chosen student) is refused before
 *   it is matched, saying what was found, with the header that offers reading it as a pile instead;
 * - a pile printed for another batch says so in its headline ("0 of 5 pages filed: all 5 were printed
 *   for another batch, “…”"), with its reasons listed, naming the other batch only when the teacher may
 *   see it.
 * Imaging is the stand-in of tests/support/intake-imaging-double.ts (each page of a real PDF carries the
 * code its QR reads as), except in the one test that reads a pile's pages with the real worker.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as scansRoute } from "../app/api/exam/batches/[batch_id]/scans/route";
import { asService } from "../server/db/rls";
import { examBatches, examSubmissions } from "../server/db/schema";
import { createBatch } from "../server/exam/batches";
import { createTemplate } from "../server/exam/templates";
import { workerImaging } from "../server/exam/intake/imaging";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { readScanPileJob } from "../server/exam/intake/pile-job";
import { encodePageCode, newBatchCode } from "../server/exam/intake/print-code";
import { runDueJobs } from "../server/jobs/run";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { createClassWithStudents, multipartBody } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { type TestSheet, imagingDouble, testPile } from "./support/intake-imaging-double";
import { postPile, printedBatch } from "./support/intake-fixtures";

const BUCKET = "cc.exam.submissions";
const PAPER_PAGES = 3;

describeOnEachDatabase("piles dropped where they do not belong", (database) => {
  let school: School;
  let otherSchool: School;
  let templateId: string;
  let otherTemplateId: string;
  let storageRoot: string;
  const db = () => database().db;
  const as = (user: { id: string }) => createCaller({ db: db(), user: { id: user.id } });

  const storedScans = (batchId: string) => {
    const folder = path.join(storageRoot, BUCKET, "exam-submissions", batchId);
    return fs.existsSync(folder) ? fs.readdirSync(folder) : [];
  };
  const submissions = (batchId: string) => asService(db(), (tx) => tx.select().from(examSubmissions).where(eq(examSubmissions.batch_id, batchId)));

  /** POST /api/exam/batches/{id}/scans with one PDF, as the scan intake screen sends it. */
  function postScan(token: string, batchId: string, bytes: Uint8Array, fields: Record<string, string> = { matching_method: "ordered" }) {
    const form = multipartBody([...Object.entries(fields).map(([name, value]) => ({ name, value })), { name: "file", filename: "scan.pdf", bytes }]);
    const request = new Request(`http://localhost/api/exam/batches/${batchId}/scans`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": form.contentType, "content-length": String(form.body.length) },
      body: form.body,
    });
    return scansRoute(request, { params: Promise.resolve({ batch_id: batchId }) });
  }

  /** A batch of the school's teacher, with a roster, never printed. */
  async function unprintedBatch(students = 3, title?: string) {
    const roster = await createClassWithStudents(db(), school, students);
    const batch = await createBatch(db(), school.teacher.id, { template_id: templateId, class_id: roster.class.id, title });
    return { batch, roster };
  }

  /** A printed batch (scripts 1… for the roster in name order, one spare), titled, anonymous if asked. */
  async function titledPrintedBatch(owner: School, template: string, title: string, { anonymous = false, students = 3 } = {}) {
    const printed = await printedBatch(db(), owner, template, { students });
    await asService(db(), (tx) => tx.update(examBatches).set({ title, anonymous }).where(eq(examBatches.id, printed.batch.id)));
    return printed;
  }

  const sheets = (count: number, code: (index: number) => string | null = () => null): TestSheet[] =>
    Array.from({ length: count }, (_, index) => ({ label: `p${index + 1}`, code: code(index) }));

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-dropped-"));
    useObjectStorage(createLocalStorage(storageRoot));
    setIntakeImaging(imagingDouble());
    school = await createSchool(db(), "Dropped");
    otherSchool = await createSchool(db(), "Elsewhere");
    templateId = (await createTemplate(db(), school.teacher.id, { title: "Mock", page_count: PAPER_PAGES })).id;
    otherTemplateId = (await createTemplate(db(), otherSchool.teacher.id, { title: "Their mock", page_count: PAPER_PAGES })).id;
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  describe("a single scan is checked before it is matched (item 12)", () => {
    it("refuses a class's pile dropped In order on a batch never printed (400, the offer header), matches nothing, keeps nothing; the same file then goes up as a pile", async () => {
      const { batch } = await unprintedBatch();
      const pile = await testPile(sheets(12));
      const refused = await postScan(school.teacher.token, batch.id, pile);
      expect(refused.status).toBe(400);
      expect(refused.headers.get("Markbook-Upload-Instead")).toBe("pile");
      expect(await refused.json()).toEqual({
        detail:
          "This scan has 12 pages; the paper has 3. It looks like a whole class's pile: read it as a pile instead, and its pages are cut into scripts (by the codes printed on them, where they have them).",
      });
      expect((await submissions(batch.id)).map((row) => row.status)).toEqual(["absent", "absent", "absent"]);
      expect(storedScans(batch.id)).toEqual([]);

      // Reading it as a pile: the same bytes, four scripts of three pages to identify.
      expect((await postPile(school.teacher.token, batch.id, pile)).status).toBe(202);
      await runDueJobs(db(), { kinds: [readScanPileJob] });
      const status = await as(school.teacher).exam.intake.status({ batch_id: batch.id });
      expect(status.scripts_to_identify).toHaveLength(4);
      expect(status.piles[0]).toMatchObject({ status: "done", filed: 12, refused: 0, refusals: [], headline: "12 of 12 pages filed" });
    });

    it("says 'more than one script' for a scan a little longer than the paper, to a chosen student too", async () => {
      const { batch, roster } = await unprintedBatch();
      const refused = await postScan(school.teacher.token, batch.id, await testPile(sheets(4)), { matching_method: "manual", student_id: roster.students[0]!.id });
      expect(refused.status).toBe(400);
      expect(refused.headers.get("Markbook-Upload-Instead")).toBe("pile");
      expect((await refused.json()).detail).toMatch(/^This scan has 4 pages; the paper has 3\. It looks like more than one script: read it as a pile instead/);
    });

    it("takes a scan of the paper's pages or fewer, without codes, in order as before", async () => {
      const { batch } = await unprintedBatch();
      for (const pages of [PAPER_PAGES, 1]) {
        const matched = await postScan(school.teacher.token, batch.id, await testPile(sheets(pages)));
        expect(matched.status).toBe(200);
        expect((await matched.json()).status).toBe("matched");
      }
    });

    it("refuses pages printed for several scripts of the batch, naming the scripts, with the offer", async () => {
      const { batch, code } = await titledPrintedBatch(school, templateId, "Year 9 test");
      const refused = await postScan(school.teacher.token, batch.id, await testPile([{ label: "a", code: code(1, 1) }, { label: "b", code: null }, { label: "c", code: code(3, 2) }]));
      expect(refused.status).toBe(400);
      expect(refused.headers.get("Markbook-Upload-Instead")).toBe("pile");
      expect((await refused.json()).detail).toBe(
        "This scan has pages printed for 2 different scripts (Script 1, Script 3): it looks like several students' scripts in one file. Read it as a pile instead, and each page goes to its own script.",
      );
      expect(storedScans(batch.id)).toEqual([]);
    });

    it("refuses a scan whose codes are another student's, naming both (In order and to a chosen student), and matches it to its own student", async () => {
      const { batch, code, slots, roster } = await titledPrintedBatch(school, templateId, "Year 9 quiz");
      const second = await testPile([1, 2, 3].map((page) => ({ label: `s2p${page}`, code: code(2, page) })));
      const inOrder = await postScan(school.teacher.token, batch.id, second);
      expect(inOrder.status).toBe(400);
      expect(inOrder.headers.get("Markbook-Upload-Instead")).toBe("pile");
      expect((await inOrder.json()).detail).toBe(
        `This scan's pages were printed for ${slots[1]!.student_name}'s script, but it would go to ${slots[0]!.student_name}. Read it as a pile instead, and it goes where its codes say.`,
      );
      const chosen = await postScan(school.teacher.token, batch.id, second, { matching_method: "manual", student_id: roster.students[2]!.id });
      expect(chosen.status).toBe(400);
      expect((await chosen.json()).detail).toMatch(`but it would go to ${slots[2]!.student_name}`);
      expect(storedScans(batch.id)).toEqual([]);

      const own = await postScan(school.teacher.token, batch.id, second, { matching_method: "manual", student_id: roster.students[1]!.id });
      expect(own.status).toBe(200);
      expect(await own.json()).toMatchObject({ id: slots[1]!.id, status: "matched" });
      // A spare copy's script belongs to no one yet: it goes in order.
      const spare = await postScan(school.teacher.token, batch.id, await testPile([{ label: "s4p1", code: code(4, 1) }]));
      expect(spare.status).toBe(200);
      expect((await spare.json()).id).toBe(slots[0]!.id);
    });

    it("names no student in an anonymous batch's refusal", async () => {
      const { batch, code, slots } = await titledPrintedBatch(school, templateId, "Anonymous mock", { anonymous: true });
      const refused = await postScan(school.teacher.token, batch.id, await testPile([{ label: "s3p1", code: code(3, 1) }]));
      expect(refused.status).toBe(400);
      const { detail } = await refused.json();
      expect(detail).toBe(`This scan's pages were printed for Script ${slots[2]!.script_number}, but it would go to Script ${slots[0]!.script_number}. Read it as a pile instead, and it goes where its codes say.`);
      for (const slot of slots) expect(detail).not.toContain(slot.student_name!);
    });

    it("refuses a scan printed for another batch: named when it is the school's, never when it is another school's (no offer: a pile would refuse it too)", async () => {
      const { batch } = await titledPrintedBatch(school, templateId, "Year 10 Mock");
      const physics = await titledPrintedBatch(school, templateId, "Year 10 Mock — Physics");
      const theirs = await titledPrintedBatch(otherSchool, otherTemplateId, "Their secret batch");

      const ours = await postScan(school.teacher.token, batch.id, await testPile([{ label: "x", code: physics.code(1, 1) }]));
      expect(ours.status).toBe(400);
      expect(ours.headers.get("Markbook-Upload-Instead")).toBeNull();
      expect((await ours.json()).detail).toBe("This scan was not printed for this batch: its pages were printed for another batch, “Year 10 Mock — Physics”. Upload it to the batch it was printed for.");

      const foreign = await postScan(school.teacher.token, batch.id, await testPile([{ label: "y", code: null }, { label: "z", code: theirs.code(2, 2) }]));
      expect(foreign.status).toBe(400);
      const { detail } = await foreign.json();
      expect(detail).toBe("This scan was not printed for this batch: its pages were printed for a batch that is not in this school's Markbook. Upload it to the batch it was printed for.");
      expect(detail).not.toContain("secret");
      expect(storedScans(batch.id)).toEqual([]);
    });

    it("answers whatever codes a scan's pages carry with a match or a refusal, never a server error; refused exactly when it has more pages than the paper or several scripts", async () => {
      const { batch, batchCode } = await titledPrintedBatch(school, templateId, "Fuzzed", { students: 40 });
      const page = fc.oneof(
        fc.constant(null),
        // Any text but the double's own delimiters (it writes the code into a PDF string as it is: "(" would break the file).
        fc.string({ maxLength: 40 }).map((text) => text.replace(/[()\\]/g, "")),
        fc.record({ script: fc.constantFrom(41, 42), page: fc.integer({ min: 1, max: 999 }) }).map(({ script, page }) => encodePageCode({ batchCode, scriptNumber: script, page })),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(page, { minLength: 1, maxLength: 6 }), async (codes) => {
          const response = await postScan(school.teacher.token, batch.id, await testPile(codes.map((code, index) => ({ label: `p${index}`, code }))));
          const scripts = new Set(codes.filter((code) => code?.startsWith(`MB1:${batchCode}:`)).map((code) => code!.split(":")[2]));
          const refused = codes.length > PAPER_PAGES || scripts.size > 1;
          // Matched to a pending student (200), or unmatched once the roster has its scans (201).
          expect(refused ? [400] : [200, 201]).toContain(response.status);
          expect(response.headers.get("Markbook-Upload-Instead")).toBe(refused ? "pile" : null);
        }),
        { numRuns: 25 },
      );
    });

    it("takes a scan it cannot open as before (the contract checks its type and signature only)", async () => {
      const { batch } = await unprintedBatch(1);
      const bytes = Buffer.alloc(2048, 0x20);
      bytes.write("%PDF-1.7\n");
      expect((await postScan(school.teacher.token, batch.id, bytes)).status).toBe(200);
    });

    it("answers 404 to another school's teacher, storing nothing", async () => {
      const { batch } = await unprintedBatch(1);
      const response = await postScan(otherSchool.teacher.token, batch.id, await testPile(sheets(12)));
      expect(response.status).toBe(404);
      expect(response.headers.get("Markbook-Upload-Instead")).toBeNull();
      expect(storedScans(batch.id)).toEqual([]);
    });

    it("counts a pile's pages with the real reader (the imaging worker) and refuses it", async () => {
      const { batch } = await unprintedBatch();
      setIntakeImaging(workerImaging());
      try {
        const refused = await postScan(school.teacher.token, batch.id, await testPile(sheets(80)));
        expect(refused.status).toBe(400);
        expect((await refused.json()).detail).toMatch(/^This scan has 80 pages; the paper has 3\. It looks like a whole class's pile/);
      } finally {
        setIntakeImaging(imagingDouble());
      }
    }, 60_000);
  });

  describe("a pile's headline says what was filed and what was refused (item 13)", () => {
    async function filedPile(batchId: string, pageSheets: TestSheet[], filename = "Set B.pdf") {
      const response = await postPile(school.teacher.token, batchId, await testPile(pageSheets), { filename });
      expect(response.status).toBe(202);
      await runDueJobs(db(), { kinds: [readScanPileJob] });
      return (await response.json()).id as string;
    }

    it("names the school's batch a foreign pile was printed for, in the headline, the reasons, each page's note and the pages list", async () => {
      const physics = await titledPrintedBatch(school, templateId, "Year 10 Mock — Physics");
      const { batch } = await titledPrintedBatch(school, templateId, "Year 10 Mock — Chemistry");
      const pileId = await filedPile(batch.id, [1, 2, 3, 4, 5].map((index) => ({ label: `f${index}`, code: physics.code(index, 1) })));
      // A colleague reads it as the owner does.
      for (const reader of [school.teacher, school.otherTeacher]) {
        const status = await as(reader).exam.intake.status({ batch_id: batch.id });
        expect(status.piles).toEqual([
          expect.objectContaining({
            id: pileId,
            status: "done",
            filed: 0,
            duplicates: 0,
            refused: 5,
            headline: "0 of 5 pages filed: all 5 were printed for another batch, “Year 10 Mock — Physics”",
            refusals: [{ reason: "Printed for another batch, “Year 10 Mock — Physics”", pages: 5 }],
          }),
        ]);
        expect(status.set_aside.map((page) => page.note)).toEqual(Array(5).fill("Printed for another batch, “Year 10 Mock — Physics”: not filed"));
      }
      const { pages } = await as(school.teacher).exam.intake.pages({ batch_id: batch.id });
      expect(pages.map((page) => page.note)).toEqual(Array(5).fill("Printed for another batch, “Year 10 Mock — Physics”: not filed"));
    });

    it("never names another school's batch, whatever its title", async () => {
      await fc.assert(
        // A mark no Markbook text holds starts every title, so that finding it means the title leaked, not
        // that a short random title ("ile", " of") happens to spell part of "filed" or "0 of 2".
        fc.asyncProperty(fc.string({ minLength: 3, maxLength: 60 }).map((rest) => `Ⓣ${rest}`).filter((title) => title.trim().length >= 3), async (title) => {
          const theirs = await titledPrintedBatch(otherSchool, otherTemplateId, title);
          const { batch } = await unprintedBatch(1);
          await filedPile(batch.id, [{ label: "t1", code: theirs.code(1, 1) }, { label: "t2", code: theirs.code(1, 2) }]);
          const status = await as(school.teacher).exam.intake.status({ batch_id: batch.id });
          expect(status.piles[0]).toMatchObject({
            headline: "0 of 2 pages filed: all 2 were printed for a batch that is not in this school's Markbook",
            refusals: [{ reason: "Printed for a batch that is not in this school's Markbook", pages: 2 }],
          });
          const pages = await as(school.teacher).exam.intake.pages({ batch_id: batch.id });
          for (const text of [JSON.stringify(status), JSON.stringify(pages)]) expect(text).not.toContain(JSON.stringify(title.trim()).slice(1, -1));
        }),
        { numRuns: 4 },
      );
    });

    it("counts a mixed pile in its headline and lists every reason, naming no student of an anonymous batch", async () => {
      const physics = await titledPrintedBatch(school, templateId, "Physics set");
      const { batch, code, slots } = await titledPrintedBatch(school, templateId, "Anonymous chemistry", { anonymous: true });
      await filedPile(batch.id, [
        { label: "s1p1", code: code(1, 1) },
        { label: "s1p1-again", code: code(1, 1) },
        { label: "s9p1", code: code(9, 1) },
        { label: "s2p7", code: code(2, 7) },
        { label: "phys", code: physics.code(1, 1) },
        { label: "lost", code: encodePageCode({ batchCode: newBatchCode(), scriptNumber: 1, page: 1 }) },
      ]);
      const status = await as(school.teacher).exam.intake.status({ batch_id: batch.id });
      expect(status.piles[0]).toMatchObject({
        filed: 1,
        duplicates: 1,
        refused: 4,
        headline: "1 of 6 pages filed; 4 refused, 1 scanned twice",
        refusals: [
          { reason: "Script 9 was never printed for this batch", pages: 1 },
          { reason: "Page 7 is not a page of this 3-page paper", pages: 1 },
          { reason: "Printed for another batch, “Physics set”", pages: 1 },
          { reason: "Printed for a batch that is not in this school's Markbook", pages: 1 },
        ],
      });
      const text = JSON.stringify(status);
      for (const slot of slots) expect(text).not.toContain(slot.student_name!);
    });

    it("answers 404 to another school's teacher", async () => {
      const { batch } = await unprintedBatch(1);
      await expect(as(otherSchool.teacher).exam.intake.status({ batch_id: batch.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(as(otherSchool.teacher).exam.intake.pages({ batch_id: batch.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    });
  });
});
