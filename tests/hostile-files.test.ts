/**
 * The hostile-file corpus (tests/support/hostile-files.ts) sent through the real paths with the real
 * imaging worker: a scanned pile (upload, then its background job), a single scan (upload, then its
 * name crop, which decodes it) and a template paper (upload, which inspects it). For every file: the
 * sentence the teacher reads, the process's resident memory (its growth, and its peak sampled while
 * the file is handled) within a generous bound, and an event loop that keeps answering throughout.
 * The bounds are far above what the files cost now and far below what they cost before (a 750-byte
 * PDF took the process to 5.6 GB; a page-tree loop was retried for five minutes).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { PDFDocument } from "pdf-lib";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as scansRoute } from "../app/api/exam/batches/[batch_id]/scans/route";
import { POST as filesRoute } from "../app/api/exam/files/route";
import { GET as nameCropRoute } from "../app/api/exam/submissions/[submission_id]/name-crop/route";
import { asService } from "../server/db/rls";
import { backgroundJobs } from "../server/db/schema";
import { env } from "../server/env";
import { AppError } from "../server/errors";
import { imagingWorkerProcess, workerImaging } from "../server/exam/intake/imaging";
import { inspectPaper } from "../server/exam/intake/imaging/inspect";
import { PAGE_PIXEL_CAP } from "../server/exam/intake/imaging/limits";
import { setIntakeImaging } from "../server/exam/intake/imaging-port";
import { readScanPileJob } from "../server/exam/intake/pile-job";
import { createTemplate } from "../server/exam/templates";
import { runDueJobs } from "../server/jobs/run";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { timeoutFor } from "./support/busy-machine";
import { describeOnEachDatabase } from "./support/database";
import { multipartBody } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { type HostileFile, hostileFiles, plainPage } from "./support/hostile-files";
import { pileRow, postPile, printedBatch } from "./support/intake-fixtures";

/** Resident memory a file may add while it is handled, at its peak: generous (a page at the cap is ~50 MB of pixels). */
const PEAK_GROWTH_BYTES = 700 * 1024 * 1024;
/** The longest the event loop may go without answering while a file is handled: generous, for a busy machine. */
const MAX_LOOP_DELAY_MS = 3_000;

const PAGE = "Scan it again, or export the PDF again.";
const damaged = (then: string) => `The file is not a PDF that can be read: it is damaged or cut short. ${then}`;
const loop = "This PDF is damaged: its list of pages loops back on itself. Scan it again, or export it again.";

/** The sentence each path gives each file (null: accepted, its cost bounded). */
const expected: Record<string, { pile: string | null; scan: string | null; paper: string | null }> = {
  "oversized-page.pdf": {
    pile: `Page 1 of this PDF cannot be read: it is 254 × 254 cm, larger than any paper (the largest page read is 120 cm on a side). ${PAGE}`,
    scan: `Page 1 of this PDF cannot be read: it is 254 × 254 cm, larger than any paper (the largest page read is 120 cm on a side). ${PAGE}`,
    paper: `Page 1 of this PDF cannot be read: it is 254 × 254 cm, larger than any paper (the largest page read is 120 cm on a side). ${PAGE}`,
  },
  "lying-jpeg-header.pdf": {
    pile: `Page 1 of this PDF cannot be read: a picture on it claims 16000 × 16000 pixels (256 megapixels; the most read is 50). ${PAGE}`,
    scan: `Page 1 of this PDF cannot be read: a picture on it claims 16000 × 16000 pixels (256 megapixels; the most read is 50). ${PAGE}`,
    paper: `This PDF cannot be read: a picture on it claims 16000 × 16000 pixels (256 megapixels; the most read is 50). ${PAGE}`,
  },
  "declared-huge-jpeg.pdf": {
    pile: `Page 1 of this PDF cannot be read: a picture on it claims 16000 × 22600 pixels (362 megapixels; the most read is 50). ${PAGE}`,
    scan: `Page 1 of this PDF cannot be read: a picture on it claims 16000 × 22600 pixels (362 megapixels; the most read is 50). ${PAGE}`,
    paper: `This PDF cannot be read: a picture on it claims 16000 × 22600 pixels (362 megapixels; the most read is 50). ${PAGE}`,
  },
  "huge-embedded-image.pdf": {
    pile: `Page 1 of this PDF cannot be read: a picture on it claims 20000 × 20000 pixels (400 megapixels; the most read is 50). ${PAGE}`,
    scan: `Page 1 of this PDF cannot be read: a picture on it claims 20000 × 20000 pixels (400 megapixels; the most read is 50). ${PAGE}`,
    paper: `This PDF cannot be read: a picture on it claims 20000 × 20000 pixels (400 megapixels; the most read is 50). ${PAGE}`,
  },
  "content-stream-bomb.pdf": {
    pile: `Page 1 of this PDF cannot be read: its content unpacks to more than 32 MB. ${PAGE}`,
    scan: `Page 1 of this PDF cannot be read: its content unpacks to more than 32 MB. ${PAGE}`,
    paper: `This PDF cannot be read: its content unpacks to more than 32 MB. ${PAGE}`,
  },
  "page-tree-loop.pdf": { pile: loop, scan: loop, paper: loop },
  "page-tree-cycle.pdf": { pile: loop, scan: loop, paper: loop },
  "junk-after-header.pdf": {
    pile: damaged("Scan the pile again, or save it as PDF from the copier."),
    scan: damaged("Scan it again, or save it as PDF from the copier."),
    paper: damaged("Export the paper as PDF again."),
  },
  "truncated.pdf": {
    pile: damaged("Scan the pile again, or save it as PDF from the copier."),
    scan: damaged("Scan it again, or save it as PDF from the copier."),
    paper: damaged("Export the paper as PDF again."),
  },
  "many-tiny-pages.pdf": {
    pile: "This PDF has more than 2,000 pages, more than one pile may have: split it into smaller piles and upload each.",
    // One scan's name crop decodes its first page only: accepted, and cheap.
    scan: null,
    paper: "This PDF has more than 200 pages, more than an exam paper may have: upload the paper alone.",
  },
};

/**
 * Runs `work` while sampling the process's resident memory and the event loop's delay; returns its
 * result (or error), the peak growth over the memory before it, and the loop's longest delay.
 */
async function measured<T>(work: () => Promise<T>) {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  try {
    const outcome = await work().then(
      (value) => ({ value, error: null }),
      (error: unknown) => ({ value: null, error }),
    );
    peak = Math.max(peak, process.memoryUsage().rss);
    return { ...outcome, peakGrowth: peak - before, maxDelayMs: delay.max / 1e6 };
  } finally {
    clearInterval(sampler);
    delay.disable();
  }
}

function expectBounded(cost: { peakGrowth: number; maxDelayMs: number }) {
  expect(cost.peakGrowth, "resident memory growth at its peak").toBeLessThan(PEAK_GROWTH_BYTES);
  expect(cost.maxDelayMs, "the event loop's longest delay").toBeLessThan(MAX_LOOP_DELAY_MS);
}

const corpus = await hostileFiles();

describe("the imaging's own limits", () => {
  const imaging = workerImaging();
  const WHOLE_PAGE = { x: 0, y: 0, width: 1, height: 1 };
  const pixelsOf = async (jpeg: Uint8Array | null) => {
    const { width, height } = await sharp(jpeg!).metadata();
    return width * height;
  };

  it("renders a page larger than A3 (A1, drawn) within the pixel cap, at a lower resolution", async () => {
    const document = await PDFDocument.create();
    const page = document.addPage([1684, 2384]);
    page.drawRectangle({ x: 100, y: 100, width: 1400, height: 2100, borderWidth: 4 });
    page.drawText("A1 poster", { x: 200, y: 2200, size: 48 });
    const pdf = await document.save();
    const cost = await measured(() => imaging.nameBoxCrop(pdf, 0, WHOLE_PAGE));
    expect(cost.error).toBeNull();
    // At 200 dpi it would be 4677 × 6622 (31 megapixels).
    const pixels = await pixelsOf(cost.value);
    expect(pixels).toBeLessThanOrEqual(PAGE_PIXEL_CAP);
    expect(pixels).toBeGreaterThan(PAGE_PIXEL_CAP * 0.9);
    expectBounded(cost);
  }, timeoutFor(6));

  it("decodes a 48-megapixel scanned page within the pixel cap", async () => {
    const jpeg = await sharp({ create: { width: 6000, height: 8000, channels: 3, background: { r: 250, g: 250, b: 250 } } }).greyscale().jpeg({ quality: 30 }).toBuffer();
    const document = await PDFDocument.create();
    const page = document.addPage([600, 800]);
    page.drawImage(await document.embedJpg(jpeg), { x: 0, y: 0, width: 600, height: 800 });
    const pdf = await document.save();
    const cost = await measured(() => imaging.nameBoxCrop(pdf, 0, WHOLE_PAGE));
    expect(cost.error).toBeNull();
    expect(await pixelsOf(cost.value)).toBeLessThanOrEqual(PAGE_PIXEL_CAP);
    expectBounded(cost);
  }, timeoutFor(6));

  it("refuses to redact a scan whose JPEG lies about its size, with redaction's sentence, memory bounded", async () => {
    const lying = corpus.find((file) => file.name === "lying-jpeg-header.pdf")!;
    const cost = await measured(() => imaging.redactScript(lying.bytes, [{ page: 1, x: 0.1, y: 0.1, width: 0.3, height: 0.1 }]));
    expect(cost.error).toBeInstanceOf(AppError);
    expect(cost.error).toMatchObject({ code: "conflict", message: expect.stringContaining("This scan cannot be read") as unknown });
    expectBounded(cost);
  }, timeoutFor(6));

  it("runs the worker as a process of its own with a bounded heap", async () => {
    await imaging.inspectPaper(plainPage());
    const worker = imagingWorkerProcess()!;
    expect(worker.pid).not.toBe(process.pid);
    expect(worker.spawnargs).toContain(`--max-old-space-size=${env().IMAGING_WORKER_HEAP_MB}`);
  });

  it("answers any damaged copy of a PDF with its page count or the teacher's reason, never anything else", async () => {
    const originals = [plainPage(), ...corpus.filter((file) => file.bytes.length < 16 * 1024).map((file) => file.bytes)];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...originals),
        fc.array(fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }), { maxLength: 12 }),
        fc.nat(),
        async (original, changes, cut) => {
          const damagedCopy = original.slice(0, Math.max(cut % (original.length + 1), 8));
          for (const { at, byte } of changes) damagedCopy[at % damagedCopy.length] = byte;
          try {
            const { pageCount } = await inspectPaper(damagedCopy);
            expect(pageCount).toBeGreaterThanOrEqual(1);
          } catch (error) {
            expect(error).toBeInstanceOf(AppError);
            expect((error as AppError).code).toBe("invalid");
            expect((error as AppError).message).toMatch(/^(The file is not a PDF that can be read|This PDF|Page \d+ of this PDF)/);
          }
        },
      ),
      { numRuns: 1000 },
    );
  }, timeoutFor(6));
});

describeOnEachDatabase("hostile PDFs through the real upload paths", (database) => {
  const db = () => database().db;
  let school: School;
  let templateId: string;
  let storageRoot: string;

  beforeAll(async () => {
    storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-hostile-"));
    useObjectStorage(createLocalStorage(storageRoot));
    setIntakeImaging(workerImaging());
    school = await createSchool(db(), "Hostile");
    templateId = (await createTemplate(db(), school.teacher.id, { title: "Mock", page_count: 2 })).id;
    // The worker started and warm (pdfjs, sharp, zxing loaded) so that what is measured is the file.
    const { batch } = await printedBatch(db(), school, templateId, { students: 1, spares: 0 });
    expect((await postPile(school.teacher.token, batch.id, plainPage())).status).toBe(202);
    await runDueJobs(db(), { kinds: [readScanPileJob] });
  }, timeoutFor(10));
  afterAll(() => fs.rmSync(storageRoot, { recursive: true, force: true }));

  it("has a sentence for every file of the corpus on every path", () => {
    expect(corpus.map((file) => file.name).sort()).toEqual(Object.keys(expected).sort());
  });

  describe.each(corpus.map((file) => [file.name, file] as [string, HostileFile]))("%s", (name, file) => {
    it(
      "a pile: its job fails it at once with the teacher's reason, never retried, memory and event loop bounded",
      async () => {
        const { batch } = await printedBatch(db(), school, templateId, { students: 1, spares: 0 });
        const response = await postPile(school.teacher.token, batch.id, file.bytes, { filename: name });
        expect(response.status).toBe(202);
        const pile = (await response.json()) as { id: string };
        const cost = await measured(() => runDueJobs(db(), { kinds: [readScanPileJob] }));
        expect(cost.error).toBeNull();
        expect(cost.value, "runs of the job").toBe(1);
        const row = await pileRow(db(), pile.id);
        expect(row).toMatchObject({ status: "failed", failure: expected[name]!.pile });
        const [job] = await asService(db(), (tx) => tx.select().from(backgroundJobs).where(eq(backgroundJobs.dedupe_key, `scan-pile:${pile.id}`)));
        expect(job).toMatchObject({ state: "failed", attempts: 1, last_error: expected[name]!.pile });
        expectBounded(cost);
      },
      timeoutFor(6),
    );

    it(
      "a single scan: stored as sent, and reading it (its name crop) answers the teacher's reason, memory and event loop bounded",
      async () => {
        const { batch } = await printedBatch(db(), school, templateId, { students: 1, spares: 0 });
        const form = multipartBody([{ name: "file", filename: name, bytes: file.bytes }]);
        const uploaded = await scansRoute(
          new Request(`http://localhost/api/exam/batches/${batch.id}/scans`, {
            method: "POST",
            headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": form.contentType },
            body: form.body,
          }),
          { params: Promise.resolve({ batch_id: batch.id }) },
        );
        expect(uploaded.status).toBe(201);
        const submission = (await uploaded.json()) as { id: string };
        const cost = await measured(() =>
          nameCropRoute(new Request(`http://localhost/api/exam/submissions/${submission.id}/name-crop`, { headers: { authorization: `Bearer ${school.teacher.token}` } }), {
            params: Promise.resolve({ submission_id: submission.id }),
          }),
        );
        const response = cost.value!;
        const sentence = expected[name]!.scan;
        if (sentence === null) {
          expect(response.status).toBe(200);
          expect(response.headers.get("content-type")).toBe("image/jpeg");
        } else {
          expect(response.status).toBe(400);
          expect(await response.json()).toEqual({ detail: sentence });
        }
        expectBounded(cost);
      },
      timeoutFor(6),
    );

    it(
      "a template paper: refused at upload with the teacher's reason (415), memory and event loop bounded",
      async () => {
        const form = multipartBody([{ name: "file", filename: name, bytes: file.bytes }]);
        const cost = await measured(() =>
          filesRoute(
            new Request("http://localhost/api/exam/files", {
              method: "POST",
              headers: { authorization: `Bearer ${school.teacher.token}`, "content-type": form.contentType, "content-length": String(form.body.length) },
              body: form.body,
            }),
          ),
        );
        const response = cost.value!;
        expect(response.status).toBe(415);
        expect(await response.json()).toEqual({ detail: expected[name]!.paper });
        expectBounded(cost);
      },
      timeoutFor(6),
    );
  });

  it("still reads an ordinary pile after the corpus: the worker serves on", async () => {
    const { batch } = await printedBatch(db(), school, templateId, { students: 1, spares: 0 });
    const pile = (await (await postPile(school.teacher.token, batch.id, plainPage())).json()) as { id: string };
    await runDueJobs(db(), { kinds: [readScanPileJob] });
    expect(await pileRow(db(), pile.id)).toMatchObject({ status: "done", page_count: 1, pages_read: 1 });
    expect(env().MAX_PILE_PAGES).toBe(2000);
  }, timeoutFor(6));
});
