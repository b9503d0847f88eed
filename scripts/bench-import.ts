/**
 * bench:import — a roster import of 2,000 people (the bar: plan + apply in ≤ 5 s), on PGlite
 * and on PostgreSQL (BENCH_DATABASE_URL or TEST_DATABASE_URL, an admin URL; a fresh database is created
 * and dropped). A school export's CSV of 2,000 rows (1,900 students in 76 classes of 25; 100 teachers,
 * each the first teacher of one class, C0 to C99, so 100 classes in all) is imported by its admin through runRosterImport, as the REST route and
 * tRPC do (row-level security, one transaction): a preview, the import, and the same file again (every
 * row unchanged). Figures go to docs/benchmarks.md between <!-- bench:import --> markers.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openScratchPostgres } from "./bench-database";
import { writeBenchmarkSection } from "./benchmarks-doc";

const temporaryDataDir = process.env.DATA_DIR ? null : fs.mkdtempSync(path.join(os.tmpdir(), "markbook-bench-"));
if (temporaryDataDir) process.env.DATA_DIR = temporaryDataDir;
process.env.LOG_LEVEL ??= "error";

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 2000);
const TEACHERS = Math.round(ROWS / 20);
const CLASS_SIZE = 25;

const { openDatabase } = await import("../server/db/client");
const { migrateDatabase } = await import("../server/db/migrate");
const { asService } = await import("../server/db/rls");
const { createInstitute } = await import("../server/identity/institutes");
const { createUser } = await import("../server/identity/users");
const { runRosterImport } = await import("../server/identity/roster-import");

type Database = Awaited<ReturnType<typeof openDatabase>>;

/** A school export: name, email, year group, role and class code per row. */
function schoolExport(): Uint8Array {
  const lines = ["First name,Last name,Email,Year,Role,Classes"];
  const students = ROWS - TEACHERS;
  for (let index = 0; index < students; index++) {
    const number = String(index).padStart(5, "0");
    lines.push(`Pupil${number},Bench,pupil${number}@bench.example.org,${7 + (index % 5)},Student,C${Math.floor(index / CLASS_SIZE)}`);
  }
  for (let index = 0; index < TEACHERS; index++) {
    lines.push(`Teacher${index},Bench,teacher${index}@bench.example.org,,Teacher,C${index}`);
  }
  return new TextEncoder().encode(`${lines.join("\r\n")}\r\n`);
}

async function measure(database: Database) {
  await migrateDatabase(database);
  const { db } = database;
  const admin = await asService(db, async (tx) => {
    const institute = await createInstitute(tx, { name: `Bench ${crypto.randomBytes(3).toString("hex")}` });
    return createUser(tx, { email: `admin.${crypto.randomBytes(3).toString("hex")}@bench.example.org`, fullName: "Bench Admin", instituteId: institute.id, role: "school_admin" });
  });
  const files = [{ name: "export.csv", bytes: schoolExport() }];
  const time = async (mode: "preview" | "apply") => {
    const start = performance.now();
    const result = await runRosterImport(db, admin.id, files, null, mode);
    return { ms: performance.now() - start, result };
  };
  const preview = await time("preview");
  if (preview.result.counts.create !== ROWS) throw new Error(`the preview plans ${preview.result.counts.create} people, not ${ROWS}`);
  const applied = await time("apply");
  if (applied.result.counts.create !== ROWS) throw new Error(`the import created ${applied.result.counts.create} people, not ${ROWS}`);
  const again = await time("apply");
  if (again.result.counts.unchanged !== ROWS) throw new Error(`the second import left ${again.result.counts.unchanged} people unchanged, not ${ROWS}`);
  return { preview: preview.ms, apply: applied.ms, again: again.ms, classes: applied.result.counts.classesCreate, enrollments: applied.result.counts.enrollmentsCreate };
}

/** A school export of `bytes` or a little more: wide rows, as an export with every column ticked. */
function wideExport(bytes: number): Uint8Array {
  const lines = ["First name,Last name,Email,Year,Role,Classes,Notes"];
  let size = 0;
  for (let index = 0; size < bytes; index++) {
    const line = `Pupil${index},Bench,pupil${index}@bench.example.org,${7 + (index % 5)},Student,C${index % 90},"${"note ".repeat(40)}"`;
    lines.push(line);
    size += line.length + 1;
  }
  return new TextEncoder().encode(lines.join("\n"));
}

/**
 * How long other requests wait while one file is read: the event loop's longest delay (and the read's
 * time) during the read, one go (decoded and parsed by csv-parse/sync, as before) against a slice at a
 * time (parseCsvTable now), A B A B in this run.
 */
async function eventLoopWhileReading(): Promise<string[]> {
  const { monitorEventLoopDelay } = await import("node:perf_hooks");
  const { parse } = await import("csv-parse/sync");
  const { parseCsvTable } = await import("../server/identity/roster-csv");
  const oneGo = async (bytes: Uint8Array) => parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes), { info: true, skip_empty_lines: true, relax_column_count: true, relax_quotes: true });
  const sliced = (bytes: Uint8Array) => parseCsvTable(bytes, "pupils.csv", 1_000_000);
  const rows: string[] = [];
  for (const megabytes of [5, 20]) {
    const bytes = wideExport(megabytes * 1024 * 1024);
    const figures = { oneGo: [] as { delay: number; time: number }[], sliced: [] as { delay: number; time: number }[] };
    for (let round = 0; round < 2; round++) {
      for (const [name, read] of [["oneGo", oneGo], ["sliced", sliced]] as const) {
        const monitor = monitorEventLoopDelay({ resolution: 1 });
        monitor.enable();
        // A few turns first: the monitor's first tick only starts its clock.
        await new Promise((resolve) => setTimeout(resolve, 10));
        const started = performance.now();
        await read(bytes);
        const time = performance.now() - started;
        // One more turn, so a delay that ends with the read is recorded.
        await new Promise((resolve) => setTimeout(resolve, 5));
        monitor.disable();
        figures[name].push({ delay: monitor.max / 1e6, time });
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const delay = (name: keyof typeof figures) => median(figures[name].map((figure) => figure.delay));
    const time = (name: keyof typeof figures) => median(figures[name].map((figure) => figure.time));
    const line =
      `| ${megabytes} MB (${(bytes.byteLength / 1e6).toFixed(1)} MB) | ${delay("oneGo").toFixed(0)} ms | ${delay("sliced").toFixed(0)} ms | ${(delay("sliced") / delay("oneGo")).toFixed(3)} ` +
      `| ${(time("oneGo") / 1000).toFixed(2)} s | ${(time("sliced") / 1000).toFixed(2)} s | ${(time("sliced") / time("oneGo")).toFixed(2)} |`;
    rows.push(line);
    console.log(line);
  }
  return rows;
}

async function main() {
  const readingRows = await eventLoopWhileReading();
  const rows: string[] = [];
  const runs: { name: string; open: () => Promise<{ database: Database; drop: () => Promise<void> }> }[] = [
    { name: "PGlite (in memory, same process)", open: async () => { const database = await openDatabase({ kind: "pglite" }); return { database, drop: () => database.close() }; } },
  ];
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (postgresUrl) runs.push({ name: "PostgreSQL (loopback, postgres.js)", open: () => openScratchPostgres(postgresUrl, 10) });
  else console.warn("BENCH_DATABASE_URL / TEST_DATABASE_URL not set: PostgreSQL is not measured.");
  let detail = "";
  for (const run of runs) {
    const { database, drop } = await run.open();
    try {
      const figures = await measure(database);
      detail = `${figures.classes} classes, ${figures.enrollments} enrollments`;
      const line = `| ${run.name} | ${(figures.preview / 1000).toFixed(2)} s | ${(figures.apply / 1000).toFixed(2)} s | ${(figures.again / 1000).toFixed(2)} s | ${figures.apply <= 5000 ? "yes" : "no"} |`;
      rows.push(line);
      console.log(line);
    } finally {
      await drop();
    }
  }
  const report = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}. ` +
      `A school export's CSV of ${ROWS.toLocaleString("en")} rows (${ROWS - TEACHERS} students, ${TEACHERS} teachers; ${detail}) imported by the ` +
      "school's admin as the REST route and tRPC do it (file read, row-level security, one transaction): the preview (the plan), the import " +
      "(the same plan, then its writes: a few multi-row statements per kind), and the same file imported again (every row unchanged). " +
      `Load average when done: ${os.loadavg().map((load) => load.toFixed(1)).join(" / ")} (1 / 5 / 15 min).`,
    "",
    "| database | preview | import (plan + write) | the same file again | import ≤ 5 s |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
    "",
    "While one school's file is read, every other request waits for the event loop. The longest wait during the read, and the read's time, " +
      "for a file at the upload limit (5 MB) and at a bundle's unpacked limit (20 MB): one go (decoded, then parsed by csv-parse/sync, as before) " +
      "and a slice at a time (256 kB decoded, 64 k characters parsed, a turn of the event loop between slices: server/identity/roster-csv.ts), " +
      "A B A B in this run, medians.",
    "",
    "| file | longest wait, one go | longest wait, slices | ratio | read, one go | read, slices | ratio |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...readingRows,
  ].join("\n");
  writeBenchmarkSection("bench:import", report, "## bench:import — roster import of 2,000 people (`npm run bench:import`)");
}

try {
  await main();
} finally {
  if (temporaryDataDir) fs.rmSync(temporaryDataDir, { recursive: true, force: true });
}
