/**
 * bench:intake — class-set intake, in stages: a class set of 30 students × 8 pages is printed (stamped
 * with its codes), scanned as a copier would (tests/support/scanned-pile.ts: 240 greyscale JPEG pages at
 * 200 dpi, ~300 kB each) and read (every page cut out of the pile, its pixels decoded, its QR code
 * found). Reading is measured twice: through the imaging worker (workerImaging().readPile, as the app
 * does it) and, as the baseline, the same work on the app thread, each in a fresh process of its own
 * (so neither inherits the other's memory). For each: seconds, pages per second, codes read, peak RSS
 * growth, and the app thread's event-loop delay (p99) while reading.
 * Then the whole job (stage 4: upload → every page filed, on PGlite and, with BENCH_DATABASE_URL or
 * TEST_DATABASE_URL, on PostgreSQL), with the latency of a class-list request meanwhile: the issue's bar
 * (≤ 60 s, ≥ 4 pages/s, ≤ 250 MB RSS growth, class list p99 ≤ 50 ms). Figures go to docs/benchmarks.md between
 * <!-- bench:intake --> markers. BENCH_INTAKE_STUDENTS sets the class size.
 */
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { PDFDocument } from "pdf-lib";
import { type GeneratedPaper, generateDemoPaper } from "../server/exam/demo-paper/pdf";
import { workerImaging } from "../server/exam/intake/imaging";
import { openPile, readPilePage } from "../server/exam/intake/imaging/pile";
import type { PageReading } from "../server/exam/intake/page-reading";
import { decodePageCode } from "../server/exam/intake/print-code";
import { scanPile, type ScannedPile } from "../tests/support/scanned-pile";
import { writeBenchmarkSection } from "./benchmarks-doc";

process.env.LOG_LEVEL ??= "error";
const STUDENTS = Number(process.env.BENCH_INTAKE_STUDENTS ?? 30);
const PAGES_PER_SCRIPT = 8;
const DPI = 200;
const SEED = 18;
/** A fixed batch code, so a pile kept from an earlier run still carries this run's codes. */
const BATCH_CODE = "BENCH1";

const mb = (bytes: number) => bytes / 1024 / 1024;
const collect = () => (globalThis as { gc?: () => void }).gc?.();

/**
 * The demo paper's pages twice over: an 8-page paper, and its answer areas as its template holds them
 * (the demo paper's, on both copies: written answers and its multiple-choice question's tick boxes).
 */
async function eightPagePaper(): Promise<{ bytes: Uint8Array; areas: GeneratedPaper["areas"] }> {
  const generated = await generateDemoPaper();
  const demo = await PDFDocument.load(generated.bytes);
  const paper = await PDFDocument.create();
  const areas: GeneratedPaper["areas"] = [];
  while (paper.getPageCount() < PAGES_PER_SCRIPT) {
    const before = paper.getPageCount();
    const indices = demo.getPageIndices().slice(0, PAGES_PER_SCRIPT - before);
    for (const page of await paper.copyPages(demo, indices)) paper.addPage(page);
    areas.push(...generated.areas.filter((area) => area.page <= indices.length).map((area) => ({ ...area, page: area.page + before })));
  }
  return { bytes: await paper.save(), areas };
}

/** Where the print keeps its codes clear of: every area of the template (print-scripts.ts, readPaper). */
const keepClearOf = (areas: GeneratedPaper["areas"]) => areas.map(({ page, x, y, width, height }) => ({ page, x, y, width, height }));

/** Stage 1: print. */
async function print() {
  const { bytes: paper, areas } = await eightPagePaper();
  const batchCode = BATCH_CODE;
  const scripts = Array.from({ length: STUDENTS }, (_, index) => ({ scriptNumber: index + 1, heading: `Student ${index + 1}` }));
  // The worker is started (and bundled) first, as in a running app.
  // Stamped clear of the template's areas, as a batch of it prints: the same pile is filed without its areas read and with them.
  await workerImaging().stamp(paper, batchCode, scripts.slice(0, 1), keepClearOf(areas));
  const start = performance.now();
  const { pdf } = await workerImaging().stamp(paper, batchCode, scripts, keepClearOf(areas));
  return { pdf, batchCode, seconds: (performance.now() - start) / 1000 };
}

/** Stage 2: scan (the generated pile is kept in node_modules/.cache: making it takes a minute or two). */
async function scan(printed: Uint8Array): Promise<{ pile: ScannedPile; seconds: number; cached: boolean; file: string }> {
  const options = { seed: SEED, pagesPerScript: PAGES_PER_SCRIPT, dpi: DPI, upsideDown: 12, duplicate: false, missing: false, shuffle: true };
  // The printed pile's own bytes are in the key: a print placed otherwise (its codes clear of other areas) is scanned again.
  const key = crypto.createHash("sha256").update(JSON.stringify({ options, students: STUDENTS, batchCode: BATCH_CODE, printed: crypto.createHash("sha256").update(printed).digest("hex"), generator: fs.readFileSync("tests/support/scanned-pile.ts") })).digest("hex").slice(0, 16);
  const cache = path.join("node_modules", ".cache", "markbook", `bench-intake-pile-${key}`);
  if (fs.existsSync(`${cache}.json`)) {
    const truth = JSON.parse(fs.readFileSync(`${cache}.json`, "utf8")) as Omit<ScannedPile, "pdf">;
    return { pile: { ...truth, pdf: new Uint8Array(fs.readFileSync(`${cache}.pdf`)) }, seconds: 0, cached: true, file: cache };
  }
  const start = performance.now();
  const pile = await scanPile(printed, options);
  const seconds = (performance.now() - start) / 1000;
  fs.mkdirSync(path.dirname(cache), { recursive: true });
  // One kept pile at a time: an older one (another generator or class size) is 70 MB of nothing.
  for (const file of fs.readdirSync(path.dirname(cache))) if (file.startsWith("bench-intake-pile-")) fs.rmSync(path.join(path.dirname(cache), file));
  fs.writeFileSync(`${cache}.pdf`, pile.pdf);
  fs.writeFileSync(`${cache}.json`, JSON.stringify({ truth: pile.truth, missing: pile.missing, duplicated: pile.duplicated }));
  return { pile, seconds, cached: false, file: cache };
}

interface ReadFigures {
  seconds: number;
  pagesPerSecond: number;
  correct: number;
  pages: number;
  rssGrowthMb: number;
  loopP99Ms: number;
  loopMaxMs: number;
}

/** Stage 3: read, with the RSS and the event loop watched meanwhile. */
async function measureReading(pile: ScannedPile, batchCode: string, read: () => AsyncIterable<PageReading>): Promise<ReadFigures> {
  collect();
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const start = performance.now();
  let pages = 0;
  let correct = 0;
  for await (const reading of read()) {
    const truth = pile.truth[reading.pilePage - 1]!;
    const decoded = reading.code ? decodePageCode(reading.code) : null;
    if (truth.kind === "printed" && decoded?.kind === "page" && decoded.batchCode === batchCode && decoded.scriptNumber === truth.scriptNumber && decoded.page === truth.page && reading.rotation === truth.rotation) correct++;
    pages++;
  }
  const seconds = (performance.now() - start) / 1000;
  loop.disable();
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  return { seconds, pagesPerSecond: pages / seconds, correct, pages, rssGrowthMb: mb(peak - before), loopP99Ms: loop.percentile(99) / 1e6, loopMaxMs: loop.max / 1e6 };
}

async function* onAppThread(pdf: Uint8Array): AsyncGenerator<PageReading> {
  const pile = await openPile(pdf);
  for (let page = 1; page <= pile.pageCount; page++) yield await readPilePage(pile, page);
}

type Reader = "worker" | "app-thread";

/** The whole job in a child process of its own, on one database; `areas`: the batch's template has its paper and answer areas, read in the pile's pass. */
function fileInChild(database: "pglite" | "postgres", pileFile: string, batchCode: string, areas: boolean): FileFigures {
  const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, "--file", database, pileFile, batchCode, areas ? "areas" : "codes"], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 1 << 24 });
  if (child.status !== 0) throw new Error(`the filing on ${database} failed (exit ${child.status})`);
  const lines = child.stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]!) as FileFigures;
}

/** One reading in a child process of its own: a clean RSS and event loop. */
function readInChild(reader: Reader, pileFile: string, batchCode: string): ReadFigures {
  const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, "--read", reader, pileFile, batchCode], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 1 << 24 });
  if (child.status !== 0) throw new Error(`the ${reader} reading failed (exit ${child.status})`);
  const lines = child.stdout.trim().split("\n");
  return JSON.parse(lines[lines.length - 1]!) as ReadFigures;
}

async function readStage(reader: Reader, pileFile: string, batchCode: string) {
  const truth = JSON.parse(fs.readFileSync(`${pileFile}.json`, "utf8")) as Omit<ScannedPile, "pdf">;
  const pdf = new Uint8Array(fs.readFileSync(`${pileFile}.pdf`));
  const pile = { ...truth, pdf };
  // The worker and the libraries are loaded before the clock starts, as in a running app.
  if (reader === "worker") for await (const reading of workerImaging().readPile(await onePage(pdf))) void reading;
  else await readPilePage(await openPile(await onePage(pdf)), 1);
  const figures = await measureReading(pile, batchCode, () => (reader === "worker" ? workerImaging().readPile(pdf) : onAppThread(pdf)));
  console.log(JSON.stringify(figures));
}

interface FileFigures {
  database: string;
  /** Whether the template had its areas, and the pages whose areas the pass read (kept on the page). */
  areas: boolean;
  pagesWithAreasRead: number;
  seconds: number;
  pagesPerSecond: number;
  filedToStudents: number;
  pages: number;
  rssGrowthMb: number;
  quiet: { p50: number; p99: number; count: number };
  during: { p50: number; p99: number; count: number };
}

const percentile = (values: number[], share: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
};

/**
 * The whole job, as the app runs it: the pile uploaded by its teacher (streamed to storage, the job
 * queued), then the job run to the end (every page stored, recorded, its code read in the worker, and
 * the pages filed into 30 submissions whose scans are assembled), while the teacher's class list is
 * asked for every 25 ms, as a busy page of the app would. The class list's latency is measured with the
 * app idle first, then during the job.
 */
async function fileStage(databaseName: "pglite" | "postgres", pileFile: string, batchCode: string, withAreas: boolean) {
  const { openDatabase, rowsOf } = await import("../server/db/client");
  const { migrateDatabase } = await import("../server/db/migrate");
  const { asService } = await import("../server/db/rls");
  const { examBatches, examQuestions, examResponseAreas } = await import("../server/db/schema");
  const { recordStoredPdf } = await import("../server/exam/pdf-upload");
  const { env } = await import("../server/env");
  const { createTemplate } = await import("../server/exam/templates");
  const { createBatch } = await import("../server/exam/batches");
  const { setIntakeImaging } = await import("../server/exam/intake/imaging-port");
  const { uploadPile } = await import("../server/exam/intake/piles");
  const { readScanPileJob } = await import("../server/exam/intake/pile-job");
  const { runDueJobs } = await import("../server/jobs/run");
  const { createLocalStorage } = await import("../server/storage/local");
  const { putObjectBytes, useObjectStorage } = await import("../server/storage/object-storage");
  const { createCaller } = await import("../server/trpc/root");
  const { eq, sql } = await import("drizzle-orm");
  const { createSchool } = await import("../tests/support/fixtures");
  const { createClassWithStudents, multipartBody } = await import("../tests/support/exam-fixtures");
  const { openScratchPostgres } = await import("./bench-database");

  const storageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-bench-intake-"));
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const opened = databaseName === "postgres" ? await openScratchPostgres(postgresUrl!, 10) : { database: await openDatabase({ kind: "pglite" }), drop: async () => {} };
  const { database } = opened;
  try {
    await migrateDatabase(database);
    const db = database.db;
    const storage = useObjectStorage(createLocalStorage(storageRoot));
    setIntakeImaging(workerImaging());
    const pdf = new Uint8Array(fs.readFileSync(`${pileFile}.pdf`));
    const school = await createSchool(db, "Bench");
    const roster = await createClassWithStudents(db, school, STUDENTS);
    let sourceFileId: string | undefined;
    const paper = await eightPagePaper();
    if (withAreas) {
      // The paper's PDF stored and recorded, as an upload leaves it.
      const key = `bench/${crypto.randomUUID()}.pdf`;
      await putObjectBytes(storage, env().SCAN_BUCKET, key, paper.bytes, { contentType: "application/pdf" });
      const sha256 = crypto.createHash("sha256").update(paper.bytes).digest("hex");
      const file = await asService(db, (tx) => recordStoredPdf(tx, { instituteId: school.institute.id, ownerId: school.teacher.id }, { bucket: env().SCAN_BUCKET, key, byteSize: paper.bytes.byteLength, sha256, originalName: "eight pages.pdf" }, PAGES_PER_SCRIPT));
      sourceFileId = file.id;
    }
    const template = await createTemplate(db, school.teacher.id, { title: "Eight pages", page_count: PAGES_PER_SCRIPT, ...(sourceFileId ? { source_file_id: sourceFileId } : {}) });
    if (withAreas) {
      // Every area of the paper, a question each (its tick boxes with the multiple-choice one's).
      await asService(db, async (tx) => {
        let order = 0;
        for (const area of paper.areas) {
          const questionId = crypto.randomUUID();
          await tx.insert(examQuestions).values({ id: questionId, template_id: template.id, label: `${++order}`, order, max_marks: "1" });
          await tx.insert(examResponseAreas).values({ id: crypto.randomUUID(), template_id: template.id, question_id: questionId, page: area.page, kind: area.kind, x: area.x, y: area.y, width: area.width, height: area.height, tick_boxes: area.tickBoxes ?? null });
        }
      });
    }
    const batch = await createBatch(db, school.teacher.id, { template_id: template.id, class_id: roster.class.id, title: "Class set" });
    // The batch as printing leaves it, with the pile's batch code: scripts 1… in roster order.
    await asService(db, async (tx) => {
      await tx.update(examBatches).set({ print_code: batchCode }).where(eq(examBatches.id, batch.id));
      await tx.execute(sql`insert into exam_printed_scripts (batch_id, script_number, submission_id)
        select ${batch.id}::uuid, row_number() over (order by student_name, id), id from exam_submissions where batch_id = ${batch.id}::uuid`);
    });
    // The worker and its libraries loaded before the clock starts, as in a running app.
    for await (const reading of workerImaging().readPile(await onePage(pdf))) void reading;

    const teacher = createCaller({ db, user: { id: school.teacher.id } });
    const classList = async (until: () => boolean) => {
      const latencies: number[] = [];
      while (!until()) {
        const start = performance.now();
        await teacher.classes.teaching();
        latencies.push(performance.now() - start);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return latencies;
    };
    const quietUntil = performance.now() + 5000;
    const quiet = await classList(() => performance.now() > quietUntil);

    const form = multipartBody([{ name: "file", filename: "class set.pdf", bytes: pdf }]);
    await uploadPile(db, school.teacher.id, batch.id, {
      contentType: form.contentType,
      contentLength: form.body.length,
      body: new Blob([form.body]).stream(),
    });
    collect();
    const before = process.memoryUsage.rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
    let done = false;
    const start = performance.now();
    const [, during] = await Promise.all([
      runDueJobs(db, { kinds: [readScanPileJob] }).finally(() => (done = true)),
      classList(() => done),
    ]);
    const seconds = (performance.now() - start) / 1000;
    clearInterval(sampler);
    const [rows] = rowsOf<{ filed: number; pages: number; read: number }>(
      await asService(db, (tx) =>
        tx.execute(sql`select count(*) filter (where s.student_id is not null)::int as filed, count(*)::int as pages, count(p.area_reading)::int as read
          from exam_scan_pages p left join exam_submissions s on s.id = p.submission_id where p.batch_id = ${batch.id}::uuid`),
      ),
    );
    if (!rows) throw new Error("no pages were recorded");
    const summary = (values: number[]) => ({ p50: percentile(values, 0.5), p99: percentile(values, 0.99), count: values.length });
    const figures: FileFigures = {
      database: databaseName,
      areas: withAreas,
      pagesWithAreasRead: rows.read,
      seconds,
      pagesPerSecond: rows.pages / seconds,
      filedToStudents: rows.filed,
      pages: rows.pages,
      rssGrowthMb: mb(peak - before),
      quiet: summary(quiet),
      during: summary(during),
    };
    console.log(JSON.stringify(figures));
  } finally {
    await database.close().catch(() => {});
    await opened.drop().catch(() => {});
    fs.rmSync(storageRoot, { recursive: true, force: true });
  }
}

async function onePage(pdf: Uint8Array) {
  const single = await PDFDocument.create();
  const [page] = await single.copyPages(await PDFDocument.load(pdf), [0]);
  single.addPage(page);
  return single.save();
}

async function main() {
  if (!(globalThis as { gc?: unknown }).gc) console.warn("Run with --expose-gc (npm run bench:intake does) for steadier RSS figures.");
  const printed = await print();
  console.log(`print: ${STUDENTS} × ${PAGES_PER_SCRIPT} pages in ${printed.seconds.toFixed(2)} s (in the worker)`);
  const scanned = await scan(printed.pdf);
  const { pile } = scanned;
  const pileMb = mb(pile.pdf.byteLength);
  console.log(`scan: ${pile.truth.length} pages, ${pileMb.toFixed(1)} MB (${((pile.pdf.byteLength / pile.truth.length) / 1000).toFixed(0)} kB a page)${scanned.cached ? " (cached)" : ` in ${scanned.seconds.toFixed(1)} s`}`);

  const worker = readInChild("worker", scanned.file, printed.batchCode);
  console.log("worker", worker);
  const appThread = readInChild("app-thread", scanned.file, printed.batchCode);
  console.log("app thread", appThread);
  // BENCH_INTAKE_PGLITE=0 leaves PGlite out (the side by side is on PostgreSQL).
  const filings = process.env.BENCH_INTAKE_PGLITE === "0" ? [] : [fileInChild("pglite", scanned.file, printed.batchCode, false)];
  for (const filing of filings) console.log("filing", filing);
  // The same pile filed on PostgreSQL with its template's areas read in the pass and without, A B A B.
  const sideBySide: { codes: FileFigures[]; areas: FileFigures[] } = { codes: [], areas: [] };
  if (process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL) {
    for (let round = 0; round < SIDE_BY_SIDE_ROUNDS; round++)
      for (const areas of [false, true]) {
        const figures = fileInChild("postgres", scanned.file, printed.batchCode, areas);
        console.log("filing", figures);
        (areas ? sideBySide.areas : sideBySide.codes).push(figures);
      }
    filings.push(...sideBySide.codes.slice(0, 1), ...sideBySide.areas.slice(0, 1));
  }
  const fileRow = (figures: FileFigures) =>
    `| ${figures.database === "pglite" ? "PGlite (embedded, one connection)" : "PostgreSQL (loopback, pool of 10)"}${figures.areas ? ", the areas read" : ""} | ${figures.seconds.toFixed(1)} s | ${figures.pagesPerSecond.toFixed(2)} | ` +
    `${figures.filedToStudents} / ${figures.pages} | ${figures.rssGrowthMb.toFixed(0)} MB | ${figures.quiet.p50.toFixed(1)} / ${figures.quiet.p99.toFixed(1)} ms | ` +
    `${figures.during.p50.toFixed(1)} / ${figures.during.p99.toFixed(1)} ms (${figures.during.count} requests) | ${figures.seconds <= 60 && figures.rssGrowthMb <= 250 && figures.during.p99 <= 50 ? "yes" : "no"} |`;

  const row = (name: string, figures: ReadFigures) =>
    `| ${name} | ${figures.seconds.toFixed(1)} s | ${figures.pagesPerSecond.toFixed(2)} | ${figures.correct} / ${figures.pages} | ${figures.rssGrowthMb.toFixed(0)} MB | ${figures.loopP99Ms.toFixed(0)} ms (max ${figures.loopMaxMs.toFixed(0)} ms) |`;
  const report = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}. ` +
      `A class set of ${STUDENTS} students × ${PAGES_PER_SCRIPT} pages printed with its codes in ${printed.seconds.toFixed(1)} s (stampScripts in the imaging worker), ` +
      `scanned by tests/support/scanned-pile.ts as a copier would (${DPI} dpi greyscale JPEGs, skewed ±1.5°, shifted ±3 mm, noise, lowered contrast, blur, 12 pages upside down, shuffled): ` +
      `${pile.truth.length} pages, ${pileMb.toFixed(0)} MB (${((pile.pdf.byteLength / pile.truth.length) / 1000).toFixed(0)} kB a page). ` +
      "Reading: the pile opened, each page cut out as a one-page PDF, its JPEG decoded (sharp) and its QR code found (zxing-wasm, with retries on failure). " +
      "RSS growth is the peak over the process (worker included) above the RSS before reading; the event-loop delay is the app thread's (monitorEventLoopDelay, 10 ms resolution). " +
      `Load average when done: ${os.loadavg().map((load) => load.toFixed(1)).join(" / ")} (1 / 5 / 15 min).`,
    "",
    "| reading | time | pages/s | codes read right | peak RSS growth | event-loop delay p99 |",
    "| --- | --- | --- | --- | --- | --- |",
    row("imaging worker (readPile)", worker),
    row("baseline: the same on the app thread", appThread),
    "",
    `The worker keeps the app thread's p99 delay at ${worker.loopP99Ms.toFixed(0)} ms against ${appThread.loopP99Ms.toFixed(0)} ms on the app thread ` +
      `(${(appThread.loopP99Ms / Math.max(worker.loopP99Ms, 0.001)).toFixed(0)}×), for ${(worker.seconds / appThread.seconds).toFixed(2)}× the reading time.`,
    "",
    "The whole job, from the end of the upload to every page filed, as the app runs it (each database in a process of its own): every page stored " +
      "and recorded (one transaction a page), its code read in the imaging worker, then the pages filed into the 30 submissions in one transaction " +
      "and each script's PDF assembled in the worker. Meanwhile the teacher's class list (tRPC `classes.teaching`, row-level security) is asked " +
      "for every 25 ms; its latency is given with the app idle (5 s) and during the job. The issue's bar: ≤ 60 s, ≤ 250 MB RSS growth, class list p99 ≤ 50 ms.",
    "",
    "| database | upload → filed | pages/s | pages filed to students | peak RSS growth | class list p50 / p99, idle | class list p50 / p99, during the job | bar met |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...filings.map(fileRow),
    ...(sideBySide.codes.length > 0 ? ["", ...sideBySideReport(sideBySide)] : []),
  ].join("\n");
  writeBenchmarkSection("bench:intake", report, "## bench:intake — class-set intake: print, scan, read and file 240 pages (`npm run bench:intake`)");
}

/** Rounds of the side by side (A B A B …): BENCH_INTAKE_ROUNDS, default 2. */
const SIDE_BY_SIDE_ROUNDS = Number(process.env.BENCH_INTAKE_ROUNDS ?? 2);

/**
 * The whole job on PostgreSQL for the same pile, its template without areas (A: codes read, pages
 * filed) and with them (B: the template's paper and answer areas, each coded page's areas read in the
 * pile's pass and kept on the page), A B A B: a page's time in each, and what the areas add (issue 36's
 * bar: ≤ 25 % of a page's intake time).
 */
function sideBySideReport({ codes, areas }: { codes: FileFigures[]; areas: FileFigures[] }): string[] {
  const perPage = (figures: FileFigures) => (1000 * figures.seconds) / Math.max(1, figures.pages);
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  const a = mean(codes.map(perPage));
  const b = mean(areas.map(perPage));
  const added = b - a;
  const share = (100 * added) / Math.max(1, a);
  const rounds = codes.map((figures, index) => `${perPage(figures).toFixed(0)} / ${areas[index] ? perPage(areas[index]).toFixed(0) : "–"} ms`).join(", ");
  return [
    `Side by side, the same pile filed on PostgreSQL ${codes.length} times each way, A B A B in this run: (A) its template without answer areas, codes read and pages filed; ` +
      `(B) its template with the paper and its areas (the demo paper's written answers and its multiple-choice question's four tick boxes, on both copies: ${areas[0]?.pagesWithAreasRead ?? 0} of ${areas[0]?.pages ?? 0} pages read with their areas in the pile's pass and kept on the page; the covers have none). ` +
      `A page's time in each round (A / B): ${rounds}.`,
    "",
    "| whole job a page, codes only (A) | whole job a page, codes and areas (B) | added by the areas (B − A) | added / a page's intake (A) | bar (≤ 25 %) met |",
    "| --- | --- | --- | --- | --- |",
    `| ${a.toFixed(0)} ms | ${b.toFixed(0)} ms | ${added.toFixed(0)} ms | ${share.toFixed(1)} % | ${share <= 25 ? "yes" : "**no**"} |`,
  ];
}

const readArguments = process.argv.indexOf("--read");
const fileArguments = process.argv.indexOf("--file");
if (fileArguments > 0) {
  const [database, pileFile, batchCode, areas] = process.argv.slice(fileArguments + 1) as ["pglite" | "postgres", string, string, "areas" | "codes"];
  await fileStage(database, pileFile, batchCode, areas === "areas");
  process.exit(0);
} else if (readArguments > 0) {
  const [reader, pileFile, batchCode] = process.argv.slice(readArguments + 1) as [Reader, string, string];
  await readStage(reader, pileFile, batchCode);
  process.exit(0);
} else await main();
