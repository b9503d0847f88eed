/**
 * bench:ticks — reading tick boxes and finding blank answers on scanned scripts (issue 36): a class set
 * of a three-page test paper (tests/support/tick-paper.ts: six tick-box questions of four boxes and three
 * written areas a page) is printed with its codes, answered in pen and pencil as people do
 * (tests/support/pen-answers.ts) and scanned as a copier would (tests/support/scanned-pile.ts: skew,
 * shift, noise, low contrast, blur, JPEG, some pages upside down, a few codes torn off). The
 * pile is read as intake reads it (readPile in the imaging worker) for its codes alone and with the
 * batch's areas in the same pass, A B A B, and each page's areas on their own (readAreas), all timed in
 * the same run. The bar: no decided answer wrong, ≥ 99 % of answers decided, no
 * written area called blank, ≥ 95 % of blank areas found, reading ≤ 25 % of the page's intake time.
 * Figures go to docs/benchmarks.md between <!-- bench:ticks --> markers. BENCH_TICKS_SCRIPTS sets the
 * class size (default 30: 2,160 boxes), BENCH_TICKS_HARSH_SCRIPTS the harsh row's (default 10).
 */
import fs from "node:fs";
import os from "node:os";
import { workerImaging } from "../server/exam/intake/imaging";
import { openPile, readPilePage } from "../server/exam/intake/imaging/pile";
import type { PageReading } from "../server/exam/intake/page-reading";
import type { AreasReading } from "../server/exam/ticks/reading";
import { type PageTruth, areasInput, batchCodeOf, penAnswers, score } from "../tests/support/pen-answers";
import { type PileTruth, scanPile } from "../tests/support/scanned-pile";
import { tickPaper } from "../tests/support/tick-paper";
import { writeBenchmarkSection } from "./benchmarks-doc";

process.env.LOG_LEVEL ??= "error";

export interface TickFigures {
  pages: number;
  boxes: number;
  boxesDecided: number;
  answers: number;
  answersDecided: number;
  wrongAnswers: number;
  wrongDetails: string[];
  undecidedDetails: string[];
  writtenAreas: number;
  falseBlanks: number;
  falseBlankDetails: string[];
  writtenMissDetails: string[];
  blankMissDetails: string[];
  blankAreas: number;
  blanksFound: number;
  writtenFound: number;
  /** A page's reading in the pile pass: its code alone (A), its code and its areas (B), and its areas read on their own (readAreas). */
  readPageMs: number;
  foldMs: number;
  readAreasMs: number;
  /** The same passes on the bench's own thread, in CPU time a page (mean): codes only, codes and areas. */
  cpuReadPageMs: number;
  cpuFoldMs: number;
  /** Pages the pass read the areas of, and of those, the pages whose decisions readAreas on its own gave alike. */
  folded: number;
  agree: number;
  byContent: number;
  notAligned: number;
  /** The most ink read in a box left empty, and the least in a box ticked: the margin the thresholds sit in. */
  emptyMaxInk: number;
  tickedMinInk: number;
}

/** Prints, answers, scans and reads a class set; `harsh` is the harsh copier. */
export async function runTicks({ scripts, seed, harsh, upsideDown, torn, mix }: { scripts: number; seed: number; harsh: boolean; upsideDown: number; torn: number; mix?: Parameters<typeof penAnswers>[3] }): Promise<TickFigures> {
  const imaging = workerImaging();
  const paper = await tickPaper({ pages: 3 });
  // A batch code of the seed's own: the same seed prints the same codes, so a run can be repeated.
  const batchCode = batchCodeOf(seed);
  const { pdf: printed } = await imaging.stamp(paper.bytes, batchCode, Array.from({ length: scripts }, (_, index) => ({ scriptNumber: index + 1, heading: `Student ${index + 1}` })), paper.keepClear);
  const answered = await penAnswers(printed, paper, seed, mix);
  const pages = scripts * paper.pages.length;
  const tornCodes = Array.from({ length: torn }, (_, index) => 1 + ((index * 7 + 2) % pages));
  const pile = await scanPile(answered.pdf, { seed, pagesPerScript: paper.pages.length, upsideDown, duplicate: false, missing: false, harsh, tornCodes, dpi: { min: 150, max: 300 } });

  // The pile read for its codes alone (A) and with its areas in the same pass (B), A B A B (a busy
  // machine's load falls on both alike), then each page's areas read on their own (readAreas, as single
  // uploads and pages without a code are), twice; per-page medians.
  const layout = {
    batchCode,
    paper: paper.bytes,
    keepClear: paper.keepClear,
    pages: paper.pages.map(({ page, tickAreas, writtenAreas }) => ({ page, tickAreas, writtenAreas: writtenAreas.map(({ kind: _kind, ...area }) => area) })),
  };
  const readings: PageReading[] = [];
  const readPageTimes: number[] = [];
  const foldTimes: number[] = [];
  const readAreasTimes: number[] = [];
  for (let round = 0; round < 2; round++) {
    for (const withAreas of [false, true]) {
      // readPile reads one page ahead: the time between two pages given is one page's reading.
      let last = performance.now();
      for await (const reading of imaging.readPile(pile.pdf, withAreas ? { areas: layout } : {})) {
        const now = performance.now();
        if (reading.pilePage > 1) (withAreas ? foldTimes : readPageTimes).push(now - last);
        last = now;
        if (round === 0 && withAreas) readings.push(reading);
      }
    }
  }
  // The same two passes on this thread, page by page, A B A B, in CPU time (process.cpuUsage: every thread
  // of the process, sharp's included): what a page costs whatever else the machine is doing.
  const plainPile = await openPile(pile.pdf);
  const foldPile = await openPile(pile.pdf, { areas: layout });
  await readPilePage(foldPile, 1);
  const cpuA: number[] = [];
  const cpuB: number[] = [];
  for (let round = 0; round < 2; round++) {
    for (let pilePage = 1; pilePage <= plainPile.pageCount; pilePage++) {
      for (const [open, times] of [
        [plainPile, cpuA],
        [foldPile, cpuB],
      ] as const) {
        const before = process.cpuUsage();
        await readPilePage(open, pilePage);
        const used = process.cpuUsage(before);
        times.push((used.user + used.system) / 1000);
      }
    }
  }
  const alone = new Map<number, AreasReading>();
  for (let round = 0; round < 2; round++) {
    for (const reading of readings) {
      const pileTruth = pile.truth[reading.pilePage - 1]! as Extract<PileTruth, { kind: "printed" }>;
      const start = performance.now();
      const read = await imaging.readAreas(areasInput(paper, reading, pileTruth, batchCode));
      readAreasTimes.push(performance.now() - start);
      if (round === 0) alone.set(reading.pilePage, read);
    }
  }
  // What intake keeps: the pass's reading; a page without its code is read on its own (by its content).
  const results: { truth: PageTruth; reading: AreasReading }[] = [];
  let agree = 0;
  let folded = 0;
  for (const reading of readings) {
    const pileTruth = pile.truth[reading.pilePage - 1]! as Extract<PileTruth, { kind: "printed" }>;
    const own = alone.get(reading.pilePage)!;
    const pass = reading.areaReading?.reading ?? null;
    if (pass) {
      folded++;
      if (JSON.stringify(decisionsOf(pass)) === JSON.stringify(decisionsOf(own))) agree++;
    }
    results.push({ truth: answered.truth[pileTruth.printedPage - 1]!, reading: pass ?? own });
  }
  return { ...score(results), readPageMs: median(readPageTimes), foldMs: median(foldTimes), cpuReadPageMs: mean(cpuA), cpuFoldMs: mean(cpuB), readAreasMs: median(readAreasTimes), pages: readings.length, folded, agree };
}

/** What a reading decides: the answers, each box's state, each written area's. */
const decisionsOf = (reading: AreasReading) => [reading.tickAreas.map((area) => [area.answer, area.boxes.map((box) => box.state)]), reading.writtenAreas.map((area) => area.blank)];

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/**
 * bench:intake's whole job on PostgreSQL, per page (ms), as docs/benchmarks.md last recorded it: its
 * side by side (the same pile filed without the areas and with them, A B A B in one run) when there,
 * with what the areas added in that run; null when not there.
 */
function intakeJobPerPage(): { codes: number; areas: number | null } | null {
  const text = fs.existsSync("docs/benchmarks.md") ? fs.readFileSync("docs/benchmarks.md", "utf8") : "";
  const sideBySide = /\n\| ([\d.]+) ms \| ([\d.]+) ms \| -?[\d.]+ ms \| -?[\d.]+ % \| (?:yes|\*\*no\*\*) \|/.exec(text);
  if (sideBySide) return { codes: Number(sideBySide[1]), areas: Number(sideBySide[2]) };
  const row = /\| PostgreSQL \(loopback, pool of 10\) \| ([\d.]+) s \| [\d.]+ \| \d+ \/ (\d+) \|/.exec(text);
  return row ? { codes: (Number(row[1]) * 1000) / Number(row[2]), areas: null } : null;
}

const percent = (part: number, whole: number) => `${((100 * part) / Math.max(1, whole)).toFixed(1)} %`;

async function main() {
  const scripts = Number(process.env.BENCH_TICKS_SCRIPTS ?? 30);
  const harshScripts = Number(process.env.BENCH_TICKS_HARSH_SCRIPTS ?? 10);
  // The worker and its libraries loaded first, as in a running app.
  await runTicks({ scripts: 1, seed: 1, harsh: false, upsideDown: 0, torn: 0 });
  const rows: [string, TickFigures][] = [];
  rows.push(["default copier", await runTicks({ scripts, seed: 36, harsh: false, upsideDown: Math.round(scripts / 3), torn: Math.max(1, Math.round(scripts / 10)) })]);
  console.log(rows[0]);
  if (harshScripts > 0) {
    rows.push(["harsh copier", await runTicks({ scripts: harshScripts, seed: 37, harsh: true, upsideDown: Math.round(harshScripts / 3), torn: Math.max(1, Math.round(harshScripts / 10)) })]);
    console.log(rows[1]);
  }
  const row = ([name, f]: [string, TickFigures]) =>
    `| ${name} | ${f.pages} | ${f.boxes} | ${percent(f.boxesDecided, f.boxes)} | ${f.answersDecided} / ${f.answers} (${percent(f.answersDecided, f.answers)}) | ${f.wrongAnswers} | ` +
    `${f.blanksFound} / ${f.blankAreas} (${percent(f.blanksFound, f.blankAreas)}) | ${f.falseBlanks} | ${f.writtenFound} / ${f.writtenAreas} | ${f.byContent} / ${f.notAligned} | ${f.agree} / ${f.folded} |`;
  const recorded = intakeJobPerPage();
  const intake = recorded?.codes ?? null;
  const added = (f: TickFigures) => f.foldMs - f.readPageMs;
  const speedRow = ([name, f]: [string, TickFigures]) =>
    `| ${name} | ${f.readPageMs.toFixed(0)} ms | ${f.foldMs.toFixed(0)} ms | ${added(f).toFixed(0)} ms | ${percent(added(f), f.readPageMs)} | ` +
    `${intake === null ? "–" : percent(added(f), intake)} | ${f.readAreasMs.toFixed(0)} ms | ` +
    `${f.cpuReadPageMs.toFixed(0)} ms | ${f.cpuFoldMs.toFixed(0)} ms | ${(f.cpuFoldMs - f.cpuReadPageMs).toFixed(0)} ms | ${percent(f.cpuFoldMs - f.cpuReadPageMs, f.cpuReadPageMs)} |`;
  const [, first] = rows[0]!;
  const report = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}. ` +
      "A three-page test paper (tests/support/tick-paper.ts: six questions of four tick boxes, square or round, and three written areas a page) printed with its codes, " +
      "answered by tests/support/pen-answers.ts (ticks, crosses, bold ticks, faint pencil, ticks overflowing the box, two boxes ticked, corrections: a box filled in and another marked, " +
      "stray marks beside the boxes, written lines, single words, pencil words, a single “7”, blank areas) and scanned by tests/support/scanned-pile.ts " +
      "(150–300 dpi greyscale JPEGs, skewed ±1.5°, shifted ±3 mm, noise, lowered contrast, blur; a third of the pages upside down, one in ten with its code torn off). " +
      "The pile read in the imaging worker as intake reads it, for its codes alone (A) and with the batch's areas in the same pass (B: each coded page's areas read on the pixels its code was read on), " +
      "A B A B in one run, as the median time a page (wall time, the worker's), and again on the bench's own thread, page by page A B A B, as the mean CPU time a page; then each page's areas read on their own (readAreas: single uploads, pages without a code), twice. " +
      "The readings scored are intake's: the pass's, and readAreas' for a page without its code. " +
      `Load average when done: ${os.loadavg().map((load) => load.toFixed(1)).join(" / ")} (1 / 5 / 15 min).`,
    "",
    "| copier | pages | boxes | boxes decided | answers decided | wrong decided answers | blank areas found | false blanks | written areas called written | pages aligned by content / not aligned | pages the pass read that readAreas decides alike |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map(row),
    "",
    "| copier | pile pass, codes only (A) | pile pass, codes and areas (B) | added by the areas (B − A) | added / the pass | added / bench:intake's whole job a page | readAreas on its own | CPU a page, codes only (A) | CPU a page, codes and areas (B) | CPU added (B − A) | CPU added / the pass |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map(speedRow),
    "",
    "The issue's bar at the default copier: no wrong decided answer, ≥ 99 % of answers decided, no false blank, ≥ 95 % of blank areas found, reading ticks and blanks adding ≤ 25 % to a page's intake time." +
      (intake === null
        ? ""
        : ` Intake's time a page is bench:intake's whole job as last recorded above (${intake.toFixed(0)} ms a page on PostgreSQL, its template without areas: stored, recorded, code read, filed, assembled): ` +
          `the areas read in the pass add ${percent(added(first), intake)} to it in this run's wall time (readAreas on its own would add ${percent(first.readAreasMs, intake)}), ` +
          `and ${percent(first.cpuFoldMs - first.cpuReadPageMs, intake)} in CPU time.` +
          (recorded?.areas == null
            ? ""
            : ` bench:intake measures the same side by side in one run of its own (the demo paper's pile filed with its areas read and without, A B A B): ${recorded.areas.toFixed(0)} ms a page against ${intake.toFixed(0)} ms, ` +
              `${percent(recorded.areas - intake, intake)} added — the figure the bar is judged by.`)),
    "",
    `In the same run, an empty box read at most ${first.emptyMaxInk} ink and a ticked box at least ${first.tickedMinInk} (default copier; the thresholds: empty below 0.012, ticked from 0.03).`,
  ].join("\n");
  writeBenchmarkSection("bench:ticks", report, "## bench:ticks — tick boxes read and blank answers found on scanned scripts (`npm run bench:ticks`)");
  process.exit(0);
}

if (process.argv[1]?.endsWith("bench-ticks.ts")) await main();
