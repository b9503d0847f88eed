/**
 * bench:limits — what a speech rate-limit take costs (server/speech/rate-limits.ts), side by side:
 *   - in memory: a Map of one-minute windows in the process, as the limiter counted before issue 16
 *     (kept here only as the baseline: one node's count, not shared);
 *   - PGlite (in memory, same process) and PostgreSQL (BENCH_DATABASE_URL or TEST_DATABASE_URL, an
 *     admin URL; a fresh database is created and dropped): the database limiter, one statement a take.
 * Each is measured one take at a time (latency) and with 16 takes in flight (throughput), over 100 keys
 * with limits high enough that every take passes. Results go to docs/benchmarks.md between
 * <!-- bench:limits --> markers.
 */
import os from "node:os";
import { type Database, openDatabase } from "../server/db/client";
import { migrateDatabase } from "../server/db/migrate";
import { SpeechRateLimiter } from "../server/speech/rate-limits";
import { openScratchPostgres } from "./bench-database";
import { writeBenchmarkSection } from "./benchmarks-doc";

const TAKES = Number(process.env.BENCH_TAKES ?? 3000);
const IN_FLIGHT = 16;
const KEYS = Array.from({ length: 100 }, (_, index) => `bench-key-${index}`);
const HIGH_LIMIT = 1_000_000_000;

/** The baseline: per-key fixed windows in one process's memory. */
class InMemoryWindows {
  private readonly windows = new Map<string, { start: number; requests: number }>();

  take(key: string) {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || now - window.start >= 60_000) {
      window = { start: now, requests: 0 };
      this.windows.set(key, window);
    }
    if (window.requests >= HIGH_LIMIT) throw new Error("limited");
    window.requests++;
    return Promise.resolve({ "x-ratelimit-remaining-requests": String(HIGH_LIMIT - window.requests) });
  }
}

/** Takes per second: `takes` takes, `inFlight` at a time, keys in turn. */
async function takesPerSecond(take: (key: string) => Promise<unknown>, takes: number, inFlight: number) {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < takes) await take(KEYS[next++ % KEYS.length]!);
    }),
  );
  return takes / ((performance.now() - start) / 1000);
}

async function main() {
  // One in-memory limiter for the whole run, as the process held it.
  const memory = new InMemoryWindows();
  const runs: { name: string; open: () => Promise<{ take: (key: string) => Promise<unknown>; drop: () => Promise<void> }> }[] = [
    { name: "in memory (one process, not shared)", open: async () => ({ take: (key) => memory.take(key), drop: async () => {} }) },
    {
      name: "PGlite 0.5 (in memory, same process)",
      open: async () => {
        const database = await openDatabase({ kind: "pglite" });
        return databaseRun(database, () => database.close());
      },
    },
  ];
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (postgresUrl) {
    runs.push({
      name: "PostgreSQL (loopback, postgres.js, pool of 10)",
      open: async () => {
        const { database, drop } = await openScratchPostgres(postgresUrl, 10);
        return databaseRun(database, drop);
      },
    });
  } else console.warn("BENCH_DATABASE_URL / TEST_DATABASE_URL not set: PostgreSQL is not measured.");

  const rows: string[] = [];
  for (const run of runs) {
    const { take, drop } = await run.open();
    try {
      await takesPerSecond(take, Math.min(500, TAKES), IN_FLIGHT); // warm-up: prepared statements, every key's row
      // Best of 3 rounds each: the machine's drift affects both alike.
      const best = async (inFlight: number) => Math.max(...[await takesPerSecond(take, TAKES, inFlight), await takesPerSecond(take, TAKES, inFlight), await takesPerSecond(take, TAKES, inFlight)]);
      const sequential = await best(1);
      const concurrent = await best(IN_FLIGHT);
      rows.push(`| ${run.name} | ${Math.round(sequential).toLocaleString("en")} | ${(1000 / sequential).toFixed(3)} ms | ${Math.round(concurrent).toLocaleString("en")} |`);
      console.log(`${run.name}: ${Math.round(sequential)} takes/s one at a time, ${Math.round(concurrent)} takes/s with ${IN_FLIGHT} in flight`);
    } finally {
      await drop();
    }
  }
  const report = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}; ` +
      `${TAKES} request takes per round over ${KEYS.length} keys, best of 3 rounds, after a warm-up. A take is what every /v1 ` +
      "transcription and every WebSocket session does once (and a session once per message or second of audio).",
    "",
    `| limiter | takes/s, one at a time | per take | takes/s, ${IN_FLIGHT} in flight |`,
    "| --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
  writeBenchmarkSection("bench:limits", report, "## Speech rate limits (`npm run bench:limits`)");
}

async function databaseRun(database: Database, drop: () => Promise<void>) {
  await migrateDatabase(database);
  const limiter = new SpeechRateLimiter(async () => database.db, HIGH_LIMIT, HIGH_LIMIT);
  return { take: (key: string) => limiter.takeRequest(key), drop };
}

await main();
