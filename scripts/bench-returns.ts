/**
 * bench:returns — a class's marked scripts as a zip (issue 35, item 4): 30 students × 8-page scans,
 * each with its cover, annotations on every page and marks in the margins, made one student at a time
 * in the marked-PDF worker process (server/exam/returns/marked-pdf) and streamed into a zip written to a
 * file, as a download would be. The scan is a real one: an 8-page paper scanned by
 * tests/support/scanned-pile.ts (200 dpi greyscale JPEGs, ~300 kB a page); each student gets their own
 * copy of its bytes (the renderer copies a scan's images without decoding them, so their content does
 * not change the work). Measured: the time from the first request to the zip's last byte, the RSS of
 * the app process and of the worker after students 5, 15 and 30 (flat memory: one student's scan and
 * PDF at a time), their peaks; then the class's scripts as one PDF, and its cover sheets as one PDF. The bar: ≤ 20 s on two
 * cores. Figures go to docs/benchmarks.md between <!-- bench:returns --> markers.
 * BENCH_RETURNS_STUDENTS sets the class size.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { PDFDocument } from "pdf-lib";
import { generateDemoPaper } from "../server/exam/demo-paper/pdf";
import type { MarkedAnnotation, MarkedQuestion, MarkedScriptDocument } from "../server/exam/returns/marked-pdf/document";
import { markedPdfWorker, markedScriptsZip } from "../server/exam/returns/marked-pdf/index";
import { scanPile } from "../tests/support/scanned-pile";
import { writeBenchmarkSection } from "./benchmarks-doc";

process.env.LOG_LEVEL ??= "error";
const STUDENTS = Number(process.env.BENCH_RETURNS_STUDENTS ?? 30);
const PAGES = 8;
const CHECKPOINTS = [...new Set([5, 15, 30, STUDENTS])].filter((student) => student <= STUDENTS);
const mb = (bytes: number) => bytes / 1024 / 1024;

/** A process's resident memory now and at its peak (Linux /proc), in bytes. */
function memoryOf(pid: number | "self"): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

/**
 * The scan, made in a child process of its own and kept in node_modules/.cache (scanning renders and
 * decodes pages: the memory it takes must not count as the zip's).
 */
function scannedScript(): Uint8Array {
  const file = path.join("node_modules", ".cache", "markbook", `bench-returns-scan-${PAGES}.pdf`);
  if (!fs.existsSync(file)) {
    const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, "--scan", file], { stdio: "inherit" });
    if (child.status !== 0) throw new Error("making the scan failed");
  }
  return new Uint8Array(fs.readFileSync(file));
}

/** CPU seconds (user + system) a process has used (Linux /proc/<pid>/stat, in clock ticks of 1/100 s). */
function cpuSecondsOf(pid: number | "self"): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The demo paper's pages over again until it has 8, scanned as a copier would. */
async function makeScan(): Promise<Uint8Array> {
  const demo = await PDFDocument.load((await generateDemoPaper()).bytes);
  const paper = await PDFDocument.create();
  while (paper.getPageCount() < PAGES) {
    const indices = demo.getPageIndices().slice(0, PAGES - paper.getPageCount());
    for (const page of await paper.copyPages(demo, indices)) paper.addPage(page);
  }
  const pile = await scanPile(await paper.save(), { seed: 35, pagesPerScript: PAGES, dpi: 200, upsideDown: 0, duplicate: false, missing: false, shuffle: false });
  return pile.pdf;
}

/** Two questions a page, each with a comment and rubric items; on every page ticks, a cross, a comment, a stamp, a highlight and a pen stroke of 120 points. */
function documentFor(student: number, scan: Uint8Array): MarkedScriptDocument {
  const questions: MarkedQuestion[] = Array.from({ length: PAGES * 2 }, (_, index) => ({
    label: `${Math.floor(index / 2) + 1}${index % 2 === 0 ? "a" : "b"}`,
    max: 4,
    awarded: (student + index) % 5,
    comment: "Clear method; check the sign when you expand the bracket, and give the units in the final answer.",
    rubricItems: ["Correct method", "Accurate answer"],
    responseAreas: [{ page: Math.floor(index / 2) + 1, x: 0.1, y: index % 2 === 0 ? 0.15 : 0.55, width: 0.8, height: 0.3 }],
  }));
  const annotations = Array.from({ length: PAGES }, (_, index) => {
    const shapes: MarkedAnnotation[] = [
      { kind: "tick", x: 0.3, y: 0.25 },
      { kind: "tick", x: 0.5, y: 0.3 },
      { kind: "cross", x: 0.6, y: 0.65 },
      { kind: "text", x: 0.2, y: 0.7, text: "Check this step: 3(x − 2) = 3x − 6." },
      { kind: "stamp", x: 0.6, y: 0.4, text: "Correct method" },
      { kind: "highlight", x: 0.15, y: 0.45, width: 0.5, height: 0.04 },
      { kind: "pen", points: Array.from({ length: 120 }, (_, point) => [0.2 + point / 300, 0.8 + Math.sin(point / 8) / 50, 0.3 + (point % 10) / 20] as [number, number, number]) },
    ];
    return { page: index + 1, shapes };
  });
  const total = questions.reduce((sum, question) => sum + (question.awarded ?? 0), 0);
  return {
    who: `Student ${student} Ñúñez-Ødegård`,
    batchTitle: "11X Maths, autumn mock",
    paperTitle: "GCSE Mathematics Paper 1 (Non-calculator) Higher Tier",
    questions,
    total: { awarded: total, max: PAGES * 2 * 4 },
    revise: [
      { name: "Expanding brackets", lost: 6, available: 12 },
      { name: "Solving linear equations", lost: 4, available: 10 },
      { name: "Fractions: addition and subtraction", lost: 3, available: 8 },
    ],
    scan: new Uint8Array(scan),
    annotations,
  };
}

async function main() {
  const scan = scannedScript();
  console.log(`Scan: ${PAGES} pages, ${mb(scan.byteLength).toFixed(1)} MB.`);
  const worker = markedPdfWorker();
  // The worker is started (and bundled) first, as in a running app that has made one PDF before.
  await worker.script(documentFor(0, scan));
  const workerPid = worker.process!.pid!;

  const checkpoints: { student: number; app: number; worker: number }[] = [];
  const output = path.join(os.tmpdir(), `bench-returns-${process.pid}.zip`);
  async function* documents() {
    for (let student = 1; student <= STUDENTS; student++) {
      // Asked for student n + 1: student n's PDF is in the zip.
      if (CHECKPOINTS.includes(student - 1)) checkpoints.push({ student: student - 1, app: memoryOf("self").rss, worker: memoryOf(workerPid).rss });
      yield documentFor(student, scan);
    }
  }
  const before = { app: memoryOf("self").rss, worker: memoryOf(workerPid).rss };
  const cpuBefore = { app: cpuSecondsOf("self"), worker: cpuSecondsOf(workerPid) };
  const start = performance.now();
  await pipeline(Readable.fromWeb(markedScriptsZip(documents(), { worker }) as NodeReadableStream<Uint8Array>), fs.createWriteStream(output));
  const seconds = (performance.now() - start) / 1000;
  const cpu = { app: cpuSecondsOf("self") - cpuBefore.app, worker: cpuSecondsOf(workerPid) - cpuBefore.worker };
  if (CHECKPOINTS.includes(STUDENTS)) checkpoints.push({ student: STUDENTS, app: memoryOf("self").rss, worker: memoryOf(workerPid).rss });
  const zipBytes = fs.statSync(output).size;
  fs.rmSync(output);
  const peaks = { app: memoryOf("self").peak, worker: memoryOf(workerPid).peak };

  // The class as ONE PDF (the worker holds every scan until it saves): time and the worker's RSS after.
  const classStart = performance.now();
  const classScripts = await worker.classScripts(
    (function* () {
      for (let student = 1; student <= STUDENTS; student++) yield documentFor(student, scan);
    })(),
  );
  const classSeconds = (performance.now() - classStart) / 1000;
  const classWorker = memoryOf(workerPid);

  const coverStart = performance.now();
  const classPdf = await worker.classFeedback(Array.from({ length: STUDENTS }, (_, index) => documentFor(index + 1, new Uint8Array(1))).map(({ scan: _scan, annotations: _annotations, ...sheet }) => sheet));
  const coverSeconds = (performance.now() - coverStart) / 1000;
  worker.stop();

  const load = os.loadavg().map((value) => value.toFixed(1)).join(" / ");
  const bar = seconds <= 20;
  const rows = checkpoints.map(({ student, app, worker: workerRss }) => `| after student ${student} | ${mb(app).toFixed(0)} MB | ${mb(workerRss).toFixed(0)} MB |`);
  const body = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model.split(" ").slice(0, 2).join(" ") ?? "CPU"}, Node ${process.version}. ${STUDENTS} students × ${PAGES}-page scans (one real scan, tests/support/scanned-pile.ts at 200 dpi: ${mb(scan.byteLength).toFixed(1)} MB; each student a copy of its bytes), each script with ${PAGES * 2} questions (comment, two rubric items, a response area each) and 7 annotations a page (two ticks, a cross, a comment, a stamp, a highlight, a 120-point pen stroke). One worker process, one student at a time, the zip streamed to a file. Load average when done: ${load} (1 / 5 / 15 min).`,
    "",
    "| | time | per student | CPU, app + worker | zip | peak RSS, app | peak RSS, worker | bar (≤ 20 s) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    `| ${STUDENTS} × ${PAGES} pages → zip | ${seconds.toFixed(1)} s | ${((seconds / STUDENTS) * 1000).toFixed(0)} ms | ${cpu.app.toFixed(1)} + ${cpu.worker.toFixed(1)} s | ${mb(zipBytes).toFixed(1)} MB | ${mb(peaks.app).toFixed(0)} MB | ${mb(peaks.worker).toFixed(0)} MB | ${bar ? "met" : "NOT met"} |`,
    "",
    "Resident memory as the zip is made (one student's scan and PDF at a time; no collection forced):",
    "",
    "| | app process | worker process |",
    "| --- | --- | --- |",
    `| before the first student | ${mb(before.app).toFixed(0)} MB | ${mb(before.worker).toFixed(0)} MB |`,
    ...rows,
    "",
    `Largest growth above the start at any checkpoint: app ${mb(Math.max(...checkpoints.map((point) => point.app)) - before.app).toFixed(0)} MB, worker ${mb(Math.max(...checkpoints.map((point) => point.worker)) - before.worker).toFixed(0)} MB, against ${mb(scan.byteLength * STUDENTS).toFixed(0)} MB of scans and ${mb(zipBytes).toFixed(0)} MB of zip passed through (what is above the start is garbage not yet collected: a few students' scans and PDFs). \`BENCH_RETURNS_STUDENTS=100\` adds a checkpoint after the last student, to see the plateau.`,
    "",
    `The class's ${STUDENTS} marked scripts as ONE PDF instead (built in the worker a student at a time, every scan held until it is saved): ${classSeconds.toFixed(1)} s, ${mb(classScripts.byteLength).toFixed(1)} MB; the worker's RSS after it ${mb(classWorker.rss).toFixed(0)} MB (its peak so far ${mb(classWorker.peak).toFixed(0)} MB).`,
    "",
    `The class's ${STUDENTS} cover sheets as one PDF (feedback on paper, item 5): ${coverSeconds.toFixed(2)} s, ${(classPdf.byteLength / 1024).toFixed(0)} kB.`,
  ].join("\n");
  console.log(body);
  writeBenchmarkSection(
    "bench:returns",
    body,
    "## bench:returns — a class's marked scripts as PDFs in a zip (`npm run bench:returns`)\n\nIssue 35, item 4: each student's cover sheet, scan, annotations and marks as one PDF, made in the marked-PDF worker process, streamed into one zip.",
  );
  if (!bar) process.exitCode = 1;
}

if (process.argv[2] === "--scan") {
  const file = process.argv[3]!;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.partial`, await makeScan());
  fs.renameSync(`${file}.partial`, file);
} else {
  await main();
}
