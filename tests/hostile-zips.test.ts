/**
 * Hostile roster zips (issue 32, item 9): a 5 MB zip whose users.csv declares 200 bytes and inflates to
 * gigabytes froze every school for minutes. Each corpus entry is answered with a sentence, through REST
 * (over HTTP, as Next hands the route its body), tRPC and the command line, while the process's memory
 * stays bounded and its event loop keeps answering. Generated damaged zips are never anything but a
 * sentence either.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { POST as rosterImportRoute } from "../app/api/school/roster-imports/route";
import { AppError } from "../server/errors";
import { readRosterSource } from "../server/identity/roster-source";
import { MAX_ZIP_ENTRIES } from "../server/identity/roster-zip";
import { createCaller } from "../server/trpc/root";
import { COST, timeoutFor } from "./support/busy-machine";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { billionRowBomb, duplicatedUsers, handMadeZip, manyEntries, nestedBomb, zeroBomb } from "./support/hostile-zips";
import { fuzzSettings } from "./support/hostile-input";
import { type RunningRouteServer, startRouteServer } from "./support/route-server";

/** 8 MB uploads (so that the 5 GB bomb, 5.3 MB compressed, is read), hence 32 MB unpacked at most. */
const MAX_BYTES = vi.hoisted(() => {
  const bytes = 8 * 1024 * 1024;
  process.env.ROSTER_IMPORT_MAX_BYTES = String(bytes);
  return bytes;
});
const UNPACKED_LIMIT = "32 MB";
/** Generous: the budget (32 MB), a chunk, the joined copy and the test's own zips, far below the gigabytes a bomb holds. */
const MAX_RSS_GROWTH = 300 * 1024 * 1024;
/** Generous: inflating the budget takes tens of milliseconds; a bomb inflated whole held the loop for minutes. */
const MAX_EVENT_LOOP_GAP_MS = 2_000;

const FIXTURES = path.join(import.meta.dirname, "fixtures/roster");

interface Watch {
  stop(): { rssGrowth: number; longestGapMs: number };
}

/** Samples the process's RSS and the gaps between timer ticks while `work` runs. */
function watchProcess(): Watch {
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  let last = performance.now();
  let longestGapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longestGapMs = Math.max(longestGapMs, now - last);
    last = now;
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  return {
    stop() {
      clearInterval(timer);
      const now = performance.now();
      longestGapMs = Math.max(longestGapMs, now - last);
      peak = Math.max(peak, process.memoryUsage.rss());
      return { rssGrowth: peak - baseline, longestGapMs };
    },
  };
}

const sentence = (name: string) => `users.csv inside ${name} unpacks to more than ${UNPACKED_LIMIT}: split the export into smaller files`;

/** The corpus: each hostile zip and the status and sentence it is answered with. */
const corpus: { what: string; name: string; zip: () => Uint8Array<ArrayBuffer>; status: number; detail: string | RegExp }[] = [
  { what: "users.csv declaring 200 bytes, inflating to 5 GB of zeros", name: "bomb.zip", zip: () => zeroBomb(5), status: 413, detail: sentence("bomb.zip") },
  { what: "users.csv with a header and a billion rows (4 GB), declaring 200 bytes", name: "rows.zip", zip: billionRowBomb, status: 413, detail: sentence("rows.zip") },
  { what: "users.csv that is itself a zip holding a bomb", name: "nested.zip", zip: nestedBomb, status: 400, detail: "users.csv is not a CSV file: it holds binary data (save the spreadsheet as CSV first)" },
  {
    what: "thousands of entries",
    name: "many.zip",
    zip: () => manyEntries(5_000),
    status: 400,
    detail: "many.zip holds 5,001 files: a OneRoster bundle has a dozen; zip only its CSV files",
  },
  { what: "users.csv twice, in two folders", name: "twice.zip", zip: duplicatedUsers, status: 400, detail: "twice.zip holds users.csv more than once: zip one copy of each file" },
  {
    what: "an encrypted users.csv",
    name: "locked.zip",
    zip: () => handMadeZip([{ name: "users.csv", data: new Uint8Array(40), flags: 0x1 }]),
    status: 400,
    detail: "users.csv inside locked.zip is encrypted: export the bundle without a password",
  },
  {
    what: "users.csv compressed with a method other than deflate",
    name: "bzip.zip",
    zip: () => handMadeZip([{ name: "users.csv", data: new Uint8Array(40), method: 12 as never }]),
    status: 400,
    detail: "users.csv inside bzip.zip is compressed in a way Markbook cannot read: zip the files again with your computer's own zip tool",
  },
  {
    what: "a directory claiming more entries than it holds",
    name: "short.zip",
    zip: () => handMadeZip([{ name: "users.csv", data: new TextEncoder().encode("sourcedId,role\n") }], { declaredCount: 40 }),
    status: 400,
    detail: "short.zip is not a zip file that can be opened",
  },
];

describeOnEachDatabase("hostile roster zips through REST over HTTP", (database) => {
  let school: School;
  let server: RunningRouteServer;
  beforeAll(async () => {
    school = await createSchool(database().db, "HostileZips");
    server = await startRouteServer((request) => rosterImportRoute(request));
  });
  afterAll(() => server?.close());

  const post = (name: string, body: Uint8Array<ArrayBuffer>) =>
    fetch(`${server.baseURL}/api/school/roster-imports?dry_run=true&filename=${name}`, {
      method: "POST",
      headers: { authorization: `Bearer ${school.admin.token}`, "content-type": "application/zip" },
      body,
    });

  for (const entry of corpus) {
    it(`${entry.what}: ${entry.status} with a sentence, bounded memory, a free event loop`, async () => {
      const zip = entry.zip();
      expect(zip.byteLength).toBeLessThanOrEqual(MAX_BYTES);
      const watch = watchProcess();
      const response = await post(entry.name, zip);
      const body = await response.json();
      const { rssGrowth, longestGapMs } = watch.stop();
      expect(response.status).toBe(entry.status);
      expect(body).toEqual({ detail: entry.detail });
      expect(rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
      expect(longestGapMs).toBeLessThan(MAX_EVENT_LOOP_GAP_MS);
    });
  }

  it("still imports the real OneRoster bundle (the same reader)", async () => {
    const response = await post("riverside.zip", new Uint8Array(fs.readFileSync(path.join(FIXTURES, "oneroster-riverside.zip"))));
    expect(response.status).toBe(200);
    expect((await response.json()).counts).toMatchObject({ create: 9, skip: 3, classesCreate: 2, enrollmentsCreate: 7 });
  });

  it("the bomb through tRPC: PAYLOAD_TOO_LARGE with the same sentence", async () => {
    const caller = createCaller({ db: database().db, user: { id: school.admin.id } });
    const watch = watchProcess();
    const refused = caller.rosterImport.preview({ files: [{ name: "bomb.zip", base64: Buffer.from(zeroBomb(5)).toString("base64") }] });
    await expect(refused).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE", message: sentence("bomb.zip") });
    expect(watch.stop().rssGrowth).toBeLessThan(MAX_RSS_GROWTH);
  });
});

describe("generated damaged zips", () => {
  const { seed, cases } = fuzzSettings(300);
  const riverside = new Uint8Array(fs.readFileSync(path.join(FIXTURES, "oneroster-riverside.zip")));
  const limits = { maxBytes: MAX_BYTES, maxRows: 20_000 };

  it("are read or refused with a sentence, never anything else (bytes changed, cut, or directory fields lying)", async () => {
    const damage = fc.oneof(
      // Bytes overwritten anywhere (the directory's sizes and offsets included).
      fc.array(fc.record({ at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }), { minLength: 1, maxLength: 12 }).map((edits) => (zip: Uint8Array) => {
        const copy = zip.slice();
        for (const { at, value } of edits) copy[at % copy.length] = value;
        return copy;
      }),
      // Cut short or with bytes added at the end.
      fc.nat().map((cut) => (zip: Uint8Array) => zip.subarray(0, cut % zip.length)),
      fc.uint8Array({ minLength: 1, maxLength: 200 }).map((tail) => (zip: Uint8Array) => new Uint8Array([...zip, ...tail])),
    );
    const source = fc.oneof(fc.constant(riverside), fc.constant(zeroBomb(0.1)), fc.constant(duplicatedUsers()), fc.constant(manyEntries(MAX_ZIP_ENTRIES + 5)));
    await fc.assert(
      fc.asyncProperty(source, damage, async (zip, spoil) => {
        const bytes = spoil(zip);
        try {
          await readRosterSource([{ name: "damaged.zip", bytes }], limits);
        } catch (error) {
          expect(error).toBeInstanceOf(AppError);
          const { code, message } = error as AppError;
          expect(["invalid", "too_large"]).toContain(code);
          expect(message.length).toBeGreaterThan(10);
        }
      }),
      { seed, numRuns: cases },
    );
  });
});

describe("the bomb through the command line (npm run markbook -- user import)", () => {
  const tsx = path.resolve("node_modules/.bin/tsx");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-cli-bomb-"));
  const bomb = path.join(dataDir, "bomb.zip");
  /** Loaded into each node process of the command (tsx starts one under itself): its peak RSS, on stderr, at exit. */
  const peakRssReporter = path.join(dataDir, "peak-rss.cjs");
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const markbook = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string; peakRss: number }>((resolve) => {
      const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", LOG_LEVEL: "error", ROSTER_IMPORT_MAX_BYTES: String(MAX_BYTES), NODE_OPTIONS: `--require ${peakRssReporter}` };
      execFile(tsx, ["scripts/markbook.ts", ...args], { env }, (error, stdout, stderr) => {
        const lines = stderr.split("\n");
        const peaks = lines.filter((line) => line.startsWith("peak-rss-kb=")).map((line) => Number(line.slice("peak-rss-kb=".length)) * 1024);
        const rest = lines.filter((line) => !line.startsWith("peak-rss-kb=")).join("\n");
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr: rest, peakRss: Math.max(...peaks) });
      });
    });

  it(
    "refuses it with the sentence and exits 1, its memory bounded",
    async () => {
      fs.writeFileSync(peakRssReporter, 'process.on("exit", () => require("node:fs").writeSync(2, `peak-rss-kb=${process.resourceUsage().maxRSS}\\n`));\n');
      fs.writeFileSync(bomb, zeroBomb(5));
      const created = await markbook(["institute", "create", "--name", "CLI Bomb"]);
      expect(created, created.stderr).toMatchObject({ code: 0 });
      const refused = await markbook(["user", "import", "--institute", created.stdout.trim(), bomb, "--dry-run"]);
      expect(refused.code).toBe(1);
      // The command line names the argument at fault as the import names it, "file".
      expect(refused.stderr).toBe(`markbook: file: ${sentence("bomb.zip")}\n`);
      // The command's own process with its embedded database peaks near 450 MB (measured, with or without
      // the bomb); the bomb inflated whole would add its gigabytes.
      expect(refused.peakRss).toBeLessThan(1024 * 1024 * 1024);
    },
    timeoutFor(COST.cliFirstRun + COST.cliRun),
  );
});
