/**
 * `npm start`'s progress in the log, through the real start path (scripts/start.ts, then server.ts) on a
 * new data folder: every step is named as it begins and with its time, and the ready line gives the
 * total with each step's share. It needs the production build (`npx next build`): without one the start
 * would build first, which is not this test's to pay for.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { STARTUP_STEPS } from "../server/startup-log";
import { timeoutFor } from "./support/busy-machine";
import { freePort } from "./support/free-port";

const hasBuild = fs.existsSync(path.join(".next", "BUILD_ID"));
if (!hasBuild) console.warn("\nstartup-log test skipped: no production build in .next (run `npx next build`)\n");

/** CPU-seconds of a first start without the build: PGlite created and migrated, demo seeded, Next loaded (measured 12–16 s). */
const FIRST_START_CPU_SECONDS = 20;

describe.skipIf(!hasBuild)("the start-up log", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-startup-"));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it(
    "names each step as it goes, with its time, and the total when ready",
    async () => {
      const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, HOST: "127.0.0.1", PORT: String(await freePort()), LOG_LEVEL: "info" };
      delete env.DATABASE_URL; // the embedded database, as on a first `npm start`
      delete env.SEED_DEMO;
      const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], { env, stdio: ["ignore", "ignore", "pipe"] });
      let log = "";
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      try {
        await new Promise<void>((resolve, reject) => {
          child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
            log += chunk;
            if (log.includes("Markbook is ready")) resolve();
          });
          void exited.then((code) => reject(new Error(`the start exited with ${code} before it was ready:\n${log}`)));
        });
      } finally {
        child.kill("SIGTERM");
        await exited;
      }

      const lines = log.split("\n");
      const firstLine = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));
      expect(lines.find((line) => line.includes("start: build:"))).toMatch(/start: build: skipped \(the production build in \.next from /);
      for (const step of STARTUP_STEPS.filter((name) => name !== "build")) {
        const began = firstLine(new RegExp(`INFO +start: ${step}: .+…$`));
        const ended = firstLine(new RegExp(`INFO +start: ${step}: .*done in \\d+\\.\\d s$`));
        expect(began, `${step} begins in the log:\n${log}`).toBeGreaterThanOrEqual(0);
        expect(ended, `${step} ends in the log:\n${log}`).toBeGreaterThan(began);
      }
      // In order: each step begins after the one before it ended.
      const begins = STARTUP_STEPS.filter((name) => name !== "build").map((step) => firstLine(new RegExp(`start: ${step}: .+…$`)));
      expect([...begins].sort((a, b) => a - b)).toEqual(begins);
      expect(log).toMatch(/start: seed: created the demo school, done in/);
      expect(log).toMatch(
        /Markbook is ready on .*: started in \d+\.\d s \(build 0\.0 s, storage \d+\.\d s, database \d+\.\d s, migrations \d+\.\d s, seed \d+\.\d s, app \d+\.\d s, listen \d+\.\d s; the rest is loading code\)/,
      );
    },
    timeoutFor(FIRST_START_CPU_SECONDS),
  );
});
