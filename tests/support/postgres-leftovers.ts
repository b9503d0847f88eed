import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * The folders of the test runs' own PostgreSQL servers: `markbook-pg-<pid of the run>-<random>` in the
 * temp folder. The pid in the name tells a live run's server from a leftover of a killed one.
 */
const FOLDER_PREFIX = "markbook-pg-";

export function runFolderName(ownerPid: number): string {
  return `${FOLDER_PREFIX}${ownerPid}-`;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The postmaster's pid, from the first line of `postmaster.pid` (absent once the server has stopped). */
export function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Stops the server of a run that is gone (immediate shutdown, then SIGKILL if it lingers) and deletes
 * its folder. Safe to call twice or on a folder another cleaner is removing.
 */
export async function removeLeftover(dataDir: string): Promise<void> {
  const pid = postmasterPid(dataDir);
  if (pid && isAlive(pid)) {
    signal(pid, "SIGQUIT");
    for (let waited = 0; isAlive(pid) && waited < 10_000; waited += 100) await sleep(100);
    if (isAlive(pid)) signal(pid, "SIGKILL");
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/** Removes every server folder whose run is gone: a killed run never leaves a server or a folder behind. */
export async function removeLeftoversOfGoneRuns(tempDir = os.tmpdir()): Promise<void> {
  for (const name of fs.readdirSync(tempDir)) {
    if (!name.startsWith(FOLDER_PREFIX)) continue;
    const owner = Number(name.slice(FOLDER_PREFIX.length).split("-")[0]);
    if (Number.isInteger(owner) && owner > 0 && !isAlive(owner)) await removeLeftover(path.join(tempDir, name));
  }
}

function signal(pid: number, name: NodeJS.Signals) {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
