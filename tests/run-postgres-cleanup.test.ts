import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { isAlive, postmasterPid, removeLeftoversOfGoneRuns, runFolderName } from "./support/postgres-leftovers";

/**
 * The PostgreSQL a test run starts for itself (tests/support/embedded-postgres.ts) leaves nothing behind
 * however the run ends. Each case starts a real server in a child process, as the run's global setup
 * does, ends that process and waits for the server and its folder to be gone.
 */

// initdb and a start (a few seconds on a quiet machine, several times that under load), then shutdown.
const SERVER_CASE_TIMEOUT = 180_000;

interface StartedRun {
  child: ChildProcess;
  dataDir: string;
  postmaster: number;
}

/** A process that starts the run's PostgreSQL and then idles, as vitest does while tests run. */
async function startRun(): Promise<StartedRun> {
  const script = `
    const { startRunPostgres } = await import("./tests/support/embedded-postgres.ts");
    const server = await startRunPostgres();
    console.log(JSON.stringify({ dataDir: server.dataDir }));
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0]!);
    });
    child.once("exit", (code) => reject(new Error(`the run exited (${code}) before its PostgreSQL was up: ${out}`)));
  });
  const { dataDir } = JSON.parse(line) as { dataDir: string };
  const postmaster = postmasterPid(dataDir);
  expect(postmaster, "the server wrote its pid").toBeDefined();
  expect(isAlive(postmaster!)).toBe(true);
  return { child, dataDir, postmaster: postmaster! };
}

/** Waits, without a deadline of its own (the test's timeout is the bound), until `done` holds. */
async function eventually(done: () => boolean) {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 200));
}

describe("the run's own PostgreSQL", () => {
  for (const signal of ["SIGINT", "SIGTERM", "SIGKILL"] as const) {
    it(
      `is stopped and its folder removed when the run gets ${signal}`,
      async () => {
        const run = await startRun();
        run.child.kill(signal);
        await eventually(() => !isAlive(run.postmaster) && !fs.existsSync(run.dataDir));
        expect(fs.existsSync(run.dataDir)).toBe(false);
        expect(isAlive(run.postmaster)).toBe(false);
      },
      SERVER_CASE_TIMEOUT,
    );
  }

  it("clears the folders of runs that are gone and leaves a live run's alone", async () => {
    const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-leftovers-"));
    const gonePid = spawnSync(process.execPath, ["-e", ""]).pid;
    const gone = fs.mkdtempSync(path.join(tempDir, runFolderName(gonePid)));
    fs.writeFileSync(path.join(gone, "postmaster.pid"), `${gonePid}\n`);
    const live = fs.mkdtempSync(path.join(tempDir, runFolderName(process.pid)));
    const unrelated = fs.mkdtempSync(path.join(tempDir, "markbook-tests-"));

    await removeLeftoversOfGoneRuns(tempDir);

    expect(fs.existsSync(gone)).toBe(false);
    expect(fs.existsSync(live)).toBe(true);
    expect(fs.existsSync(unrelated)).toBe(true);
    fs.rmSync(tempDir, { recursive: true, force: true });
  });
});
