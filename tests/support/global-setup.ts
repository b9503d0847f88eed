import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import type { TestProject } from "vitest/node";
import { openDatabase, rowsOf } from "../../server/db/client";
import { migrateDatabase } from "../../server/db/migrate";
import { startRunPostgres } from "./embedded-postgres";
import { withDatabase } from "./postgres";

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplatePath: string;
    /** Admin URL of the run's PostgreSQL; "" when the PostgreSQL half is switched off (TEST_POSTGRES=off). */
    postgresAdminUrl: string;
    postgresTemplate: string;
  }
}

/**
 * Picks the run's PostgreSQL and migrates each database once; every test file then starts from a copy
 * of the migrated template.
 */
export default async function setup(project: TestProject) {
  keepFailedRunsFailing();
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-tests-"));
  const teardown: Array<() => Promise<void>> = [async () => fs.rmSync(directory, { recursive: true, force: true })];
  const tearDown = async () => {
    for (const step of teardown.reverse()) await step();
  };
  try {
    const pglite = await openDatabase({ kind: "pglite" });
    await migrateDatabase(pglite);
    const dump = await (pglite.db as unknown as { $client: { dumpDataDir(c: "none"): Promise<Blob> } }).$client.dumpDataDir("none");
    await pglite.close();
    const templatePath = path.join(directory, "pglite-template.tar");
    fs.writeFileSync(templatePath, Buffer.from(await dump.arrayBuffer()));
    project.provide("pgliteTemplatePath", templatePath);

    const adminUrl = await runPostgres(teardown);
    project.provide("postgresAdminUrl", adminUrl ?? "");
    // A template of this run's own: runs started side by side never drop each other's template.
    const postgresTemplate = `markbook_test_template_${process.pid}`;
    project.provide("postgresTemplate", postgresTemplate);
    if (adminUrl) {
      await adminExecute(adminUrl, `drop database if exists ${postgresTemplate} with (force)`);
      await adminExecute(adminUrl, `create database ${postgresTemplate}`);
      teardown.push(() => adminExecute(adminUrl, `drop database if exists ${postgresTemplate} with (force)`));
      const template = await openDatabase({ kind: "postgres", url: withDatabase(adminUrl, postgresTemplate), poolMax: 1 });
      await migrateDatabase(template);
      await template.close();
    }
  } catch (error) {
    // Vitest runs no teardown when the setup fails: stop the server here.
    await tearDown();
    throw error;
  }
  return tearDown;
}

/**
 * embedded-postgres registers async-exit-hook as it is imported, and that hook ends the process with
 * `process.exit(0)` on 'beforeExit': a run whose tests failed exited 0, and CI passed it. An exit with
 * code 0 keeps the failure vitest recorded (process.exitCode) instead.
 */
function keepFailedRunsFailing(): void {
  const exit = process.exit.bind(process);
  process.exit = (code?: number | string | null) => exit(code === 0 && process.exitCode ? process.exitCode : code);
}

/**
 * TEST_DATABASE_URL when set (CI: the machine's PostgreSQL 15), else a PostgreSQL 18 of the run's own
 * from npm; TEST_POSTGRES=off runs the PGlite half only. Says in one line which it is.
 */
async function runPostgres(teardown: Array<() => Promise<void>>): Promise<string | undefined> {
  const given = process.env.TEST_DATABASE_URL;
  if (given) {
    console.info(`PostgreSQL for this run: TEST_DATABASE_URL ${redacted(given)} (PostgreSQL ${await serverVersion(given)})`);
    return given;
  }
  if (process.env.TEST_POSTGRES === "off") {
    console.warn("PostgreSQL for this run: none (TEST_POSTGRES=off); the PostgreSQL runs of the integration tests are skipped");
    return undefined;
  }
  const server = await startRunPostgres();
  teardown.push(server.stop);
  console.info(`PostgreSQL for this run: embedded-postgres ${server.version} on ${redacted(server.adminUrl)}, folder ${server.dataDir}`);
  return server.adminUrl;
}

async function adminExecute(adminUrl: string, statement: string) {
  const admin = await openDatabase({ kind: "postgres", url: adminUrl, poolMax: 1 });
  try {
    await admin.db.execute(sql.raw(statement));
  } finally {
    await admin.close();
  }
}

async function serverVersion(url: string): Promise<string> {
  const admin = await openDatabase({ kind: "postgres", url, poolMax: 1 });
  try {
    const [row] = rowsOf<{ server_version: string }>(await admin.db.execute(sql`show server_version`));
    return String(row?.server_version);
  } finally {
    await admin.close();
  }
}

function redacted(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "***";
  return parsed.toString();
}
