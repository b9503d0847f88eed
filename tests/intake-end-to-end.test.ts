/**
 * Class-set intake end to end, with real pixels: a batch printed through its REST route, the printed
 * PDF scanned as a copier would (tests/support/scanned-pile.ts: rendered, greyscale JPEG, skewed, noisy,
 * some pages upside down, one twice, one missing, a torn code, a page of another batch, shuffled),
 * uploaded over REST, read by the real job in the real imaging worker (zxing on the pixels), and every
 * page's place checked against what the pile really holds. Then a spare copy is identified and the
 * torn page moved by hand, as a teacher would.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { PDFDocument } from "pdf-lib";
import { afterAll, beforeAll, expect, it } from "vitest";
import { POST as printRoute } from "../app/api/exam/batches/[batch_id]/printed-scripts/route";
import { GET as pageImageRoute } from "../app/api/exam/scan-pages/[page_id]/image/route";
import { GET as nameCropRoute } from "../app/api/exam/submissions/[submission_id]/name-crop/route";
import { asService } from "../server/db/rls";
import { examPrintedScripts, examSubmissions } from "../server/db/schema";
import { workerImaging } from "../server/exam/intake/imaging";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { readScanPileJob } from "../server/exam/intake/pile-job";
import { runDueJobs } from "../server/jobs/run";
import { createLocalStorage } from "../server/storage/local";
import { type ObjectStorage, readObjectBytes, useObjectStorage } from "../server/storage/object-storage";
import { createCaller } from "../server/trpc/root";
import { timeoutFor } from "./support/busy-machine";
import { describeOnEachDatabase } from "./support/database";
import { createClassWithStudents } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { pagesOfPile, pileRow, postPile, submissionRow, uploadDemoPaper } from "./support/intake-fixtures";
import { scanPile } from "./support/scanned-pile";

const BUCKET = "cc.exam.submissions";
const STUDENTS = 4;
const SPARES = 2;

describeOnEachDatabase("class-set intake end to end, on scanned pixels", (database) => {
  let school: School;
  let storageRoot: string;
  let storage: ObjectStorage;
  let paperFileId: string;
  let pagesPerScript: number;
  const db = () => database().db;
  const as = (user: { id: string }) => createCaller({ db: db(), user: { id: user.id } });

  async function printBatch(title: string) {
    const teacher = as(school.teacher);
    const template = await teacher.exam.templates.create({ title, page_count: pagesPerScript, source_file_id: paperFileId });
    const roster = await createClassWithStudents(db(), school, STUDENTS);
    const batch = await teacher.exam.batches.create({ template_id: template.id, class_id: roster.class.id, title });
    const response = await printRoute(
      new Request(`http://localhost/api/exam/batches/${batch.id}/printed-scripts`, {
        method: "POST",
        headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": "application/json" },
        body: JSON.stringify({ spare_copies: SPARES }),
      }),
      { params: Promise.resolve({ batch_id: batch.id }) },
    );
    expect(response.status).toBe(200);
    const printed = new Uint8Array(await response.arrayBuffer());
    const scripts = await asService(db(), (tx) => tx.select().from(examPrintedScripts).where(eq(examPrintedScripts.batch_id, batch.id)).orderBy(examPrintedScripts.script_number));
    // The PDF holds the students' scripts in name order (each with its submission's shuffled number),
    // then the spare copies.
    const names = await asService(db(), (tx) => tx.select({ id: examSubmissions.id, name: examSubmissions.student_name }).from(examSubmissions).where(eq(examSubmissions.batch_id, batch.id)));
    const nameOf = new Map(names.map((row) => [row.id, row.name ?? ""]));
    const studentScripts = scripts.filter((script) => script.submission_id).sort((a, b) => nameOf.get(a.submission_id!)!.localeCompare(nameOf.get(b.submission_id!)!));
    const printOrder = [...studentScripts, ...scripts.filter((script) => !script.submission_id)].map((script) => script.script_number);
    return { batch, printed, scripts, printOrder };
  }

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-intake-e2e-"));
    storage = useObjectStorage(createLocalStorage(storageRoot));
    setIntakeImaging(workerImaging());
    school = await createSchool(db(), "Intake end to end");
    ({ fileId: paperFileId, pageCount: pagesPerScript } = await uploadDemoPaper(school));
  });
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  it(
    "files every page of a shuffled, skewed, partly upside-down pile exactly, and a teacher finishes the rest by hand",
    async () => {
      const { batch, printed, scripts, printOrder } = await printBatch("10A mock");
      const other = await printBatch("10B mock");
      expect(scripts.map((script) => script.script_number)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(printOrder.slice(STUDENTS)).toEqual([5, 6]);
      const submissionOf = new Map(scripts.map((script) => [script.script_number, script.submission_id]));

      // The first student in the class list lost their script and wrote on spare copy 5; spare copy 6
      // was never used.
      const used = [...printOrder.slice(1, STUDENTS), 5];
      const handedIn = await pagesOfScripts(printed, used.map((script) => printOrder.indexOf(script) + 1), pagesPerScript);
      const tornPrintedPage = pagesPerScript + 2; // script 3, page 2 (the second script of the pile)
      const pile = await scanPile(handedIn, {
        seed: 18,
        pagesPerScript,
        scriptNumbers: used,
        dpi: { min: 150, max: 300 },
        upsideDown: 3,
        duplicate: true,
        missing: true,
        tornCodes: [tornPrintedPage],
        foreign: { printed: other.printed, pages: [1] },
      });

      const uploaded = await postPile(school.teacher.token, batch.id, pile.pdf, { filename: "10A pile.pdf" });
      expect(uploaded.status).toBe(202);
      const { id: pileId } = (await uploaded.json()) as { id: string };
      expect(await runDueJobs(db(), { kinds: [readScanPileJob] })).toBe(1);
      expect(await pileRow(db(), pileId)).toMatchObject({ status: "done", page_count: pile.truth.length, pages_read: pile.truth.length, failure: null });

      // Every page, in pile order, where the truth says it belongs.
      const pages = await pagesOfPile(db(), pileId);
      expect(pages).toHaveLength(pile.truth.length);
      const seen = new Set<string>();
      const tornScripts = new Set<string>();
      for (const [index, page] of pages.entries()) {
        const truth = pile.truth[index]!;
        const where = `pile page ${index + 1} (${JSON.stringify(truth)})`;
        if (truth.kind === "foreign") {
          expect(page.placement, where).toBe("refused");
          expect(page.note, where).toMatch(/another batch/);
          continue;
        }
        if (truth.kind !== "printed") throw new Error(`unexpected ${where}`);
        if (truth.torn) {
          // No code and no neighbour to follow in a shuffled pile: a script of its own, to identify.
          expect(page.placement, where).toBe("filed");
          expect(page.code, where).toBeNull();
          tornScripts.add(page.submission_id!);
          continue;
        }
        const key = `${truth.scriptNumber}:${truth.page}`;
        expect(page.rotation, where).toBe(truth.rotation);
        expect(page.script_number, where).toBe(truth.scriptNumber);
        expect(page.printed_page, where).toBe(truth.page);
        if (seen.has(key)) {
          expect(page.placement, where).toBe("duplicate");
          continue;
        }
        seen.add(key);
        expect(page.placement, where).toBe("filed");
        expect(page.page_number, where).toBe(truth.page);
        const studentSubmission = submissionOf.get(truth.scriptNumber);
        if (studentSubmission) expect(page.submission_id, where).toBe(studentSubmission);
      }
      expect(tornScripts.size).toBe(1);
      expect(pile.duplicated).not.toBeNull();

      const teacher = as(school.teacher);
      const status = await teacher.exam.intake.status({ batch_id: batch.id });
      expect(status.counts).toMatchObject({ pages_read: pile.truth.length, duplicates: 1, refused: 1 });
      // The spare copy and the torn page are the scripts to identify.
      expect(status.scripts_to_identify).toHaveLength(2);
      const missingPrinted = pile.missing.map((printedPage) => ({ script: used[Math.floor((printedPage - 1) / pagesPerScript)]!, page: ((printedPage - 1) % pagesPerScript) + 1 }));
      const tornAt = { script: used[Math.floor((tornPrintedPage - 1) / pagesPerScript)]!, page: ((tornPrintedPage - 1) % pagesPerScript) + 1 };
      for (const { script, page } of [...missingPrinted, tornAt]) {
        const submissionId = submissionOf.get(script);
        if (!submissionId) continue;
        expect(status.missing_pages.find((entry) => entry.submission_id === submissionId)?.missing_positions).toContain(page);
      }

      // The spare copy: its name crop is a JPEG, and it is identified as student 1, who lost theirs.
      const spare = status.scripts_to_identify.find((script) => !tornScripts.has(script.submission_id))!;
      const crop = await nameCropRoute(new Request(`http://localhost/api/exam/submissions/${spare.submission_id}/name-crop`, { headers: { authorization: `Bearer ${school.teacher.token}` } }), {
        params: Promise.resolve({ submission_id: spare.submission_id }),
      });
      expect(crop.status).toBe(200);
      expect(crop.headers.get("content-type")).toBe("image/jpeg");
      expect(Buffer.from(await crop.arrayBuffer()).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
      // Any page, upright, for the screen where pages are moved by hand.
      const image = await pageImageRoute(new Request(`http://localhost/api/exam/scan-pages/${pages[0]!.id}/image`, { headers: { authorization: `Bearer ${school.teacher.token}` } }), {
        params: Promise.resolve({ page_id: pages[0]!.id }),
      });
      expect(image.status).toBe(200);
      expect(Buffer.from(await image.arrayBuffer()).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
      const studentOne = submissionOf.get(printOrder[0]!)!;
      const studentOneRow = await submissionRow(db(), studentOne);
      const identified = await teacher.exam.submissions.assign({ submission_id: spare.submission_id, student_id: studentOneRow!.student_id! });
      expect(identified).toMatchObject({ id: studentOne, status: "matched" });

      // The torn page is moved by hand into its student's script, at its page.
      const [tornPage] = (await pagesOfPile(db(), pileId)).filter((page) => page.submission_id === [...tornScripts][0]);
      await teacher.exam.intake.movePage({ page_id: tornPage!.id, submission_id: submissionOf.get(tornAt.script)!, page_number: tornAt.page });
      const after = await teacher.exam.intake.status({ batch_id: batch.id });
      expect(after.scripts_to_identify).toEqual([]);
      expect(after.missing_pages.find((entry) => entry.submission_id === submissionOf.get(tornAt.script))?.missing_positions ?? []).not.toContain(tornAt.page);

      // A student's assembled scan: one page per position, each turned upright as read.
      const complete = scripts.find((script) => script.submission_id && !missingPrinted.some((missing) => missing.script === script.script_number) && script.script_number !== printOrder[0] && script.script_number !== tornAt.script)!;
      const row = await submissionRow(db(), complete.submission_id!);
      expect(row).toMatchObject({ status: "matched", matching_method: "qr", page_count: pagesPerScript });
      const assembled = await PDFDocument.load(await readObjectBytes(storage, BUCKET, row!.scan_url!));
      const expectedTurns = pages.filter((page) => page.submission_id === complete.submission_id && page.placement === "filed").sort((a, b) => a.page_number! - b.page_number!).map((page) => page.rotation);
      expect(assembled.getPages().map((page) => page.getRotation().angle)).toEqual(expectedTurns);
    },
    // Printing twice, scanning ~18 pages (0.3 s each), reading them in the worker, filing: about 15 CPU-seconds.
    timeoutFor(20),
  );
});

/** The pages of some printed scripts (1-based positions in the printed PDF), as the pile handed in holds them. */
async function pagesOfScripts(printed: Uint8Array, positions: number[], pagesPerScript: number): Promise<Uint8Array> {
  const source = await PDFDocument.load(printed);
  const pile = await PDFDocument.create();
  const indices = positions.flatMap((script) => Array.from({ length: pagesPerScript }, (_, page) => (script - 1) * pagesPerScript + page));
  for (const page of await pile.copyPages(source, indices)) pile.addPage(page);
  return pile.save();
}
