import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

/**
 * PGlite's data folder must never be opened by two processes at once: a second writer corrupts it.
 * The holder writes its pid (and what it is) into DATA_DIR/markbook.lock, created atomically with
 * 'wx'. A lock whose pid is no longer alive was left by a crash and is taken over.
 */
export const LOCK_FILE_NAME = "markbook.lock";

export type LockHolderKind = "server" | "cli";

export interface DataDirLock {
  readonly file: string;
  release(): void;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly pid: number,
    readonly holder: LockHolderKind,
    readonly dataDir: string,
  ) {
    const who = holder === "cli" ? `A markbook command (pid ${pid})` : `The Markbook server (pid ${pid})`;
    super(
      `${who} is using the embedded database in ${dataDir}. ` +
        "Stop it first, or point DATABASE_URL at PostgreSQL to run the CLI alongside the server.",
    );
    this.name = "DataDirLockedError";
  }
}

// Locks this process holds, so that a lock file naming our own pid is recognised as ours (held) or
// as a leftover of an earlier process that had the same pid (stale; common for pid 1 in containers).
const heldFiles = new Set<string>();

interface LockContent {
  pid: number;
  holder: LockHolderKind;
}

function readLock(file: string): LockContent | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const [pidLine, holderLine] = text.split("\n");
  const pid = Number(pidLine?.trim());
  // An unreadable lock (say, a crash mid-write) names no live process: treat it as stale.
  return { pid: Number.isInteger(pid) && pid > 0 ? pid : 0, holder: holderLine?.trim() === "cli" ? "cli" : "server" };
}

/** Whether a process with this pid exists (also one of another user). */
export function isAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0); // signal 0: existence check only
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // exists, but belongs to another user
  }
}

function isHeldBySomeoneElse(file: string, lock: LockContent): boolean {
  if (lock.pid === process.pid) return heldFiles.has(file);
  return isAlive(lock.pid);
}

export function acquireDataDirLock(dataDir: string, holder: LockHolderKind): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE_NAME);
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      fs.writeFileSync(file, `${process.pid}\n${holder}\n`, { flag: "wx" });
      heldFiles.add(file);
      const release = () => releaseLock(file);
      process.once("exit", release); // a last resort; the owner releases explicitly on shutdown
      return {
        file,
        release() {
          process.removeListener("exit", release);
          release();
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const existing = readLock(file);
    if (!existing) continue; // released meanwhile: try again
    if (isHeldBySomeoneElse(file, existing)) throw new DataDirLockedError(existing.pid, existing.holder, dataDir);
    removeStaleLock(file, existing, dataDir);
  }
  throw new Error(`Could not take the lock ${file}: it keeps changing`);
}

/**
 * Moves the stale lock aside before deleting it, and checks that what was moved is still the stale
 * lock: if another process took the lock over in between, its fresh lock is put back.
 */
function removeStaleLock(file: string, stale: LockContent, dataDir: string) {
  const aside = `${file}.stale-${process.pid}-${crypto.randomBytes(4).toString("hex")}`;
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return; // someone else removed it
    throw error;
  }
  const moved = readLock(aside);
  if (moved && moved.pid !== stale.pid && isAlive(moved.pid)) {
    try {
      fs.linkSync(aside, file);
    } catch {
      // A third process already holds a new lock: fine either way.
    }
    fs.rmSync(aside, { force: true });
    throw new DataDirLockedError(moved.pid, moved.holder, dataDir);
  }
  fs.rmSync(aside, { force: true });
}

function releaseLock(file: string) {
  if (!heldFiles.delete(file)) return;
  // Only remove the file if it is still ours.
  if (readLock(file)?.pid === process.pid) fs.rmSync(file, { force: true });
}
