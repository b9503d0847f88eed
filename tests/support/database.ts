import crypto from "node:crypto";
import fs from "node:fs";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, inject } from "vitest";
import { type Database, openDatabase, useDatabase } from "../../server/db/client";
import { postgresAdminUrl, withDatabase } from "./postgres";

export type DatabaseKind = Database["kind"];

/** A fresh, migrated database of its own for one test file (a copy of the template). */
export async function createTestDatabase(kind: DatabaseKind): Promise<Database> {
  if (kind === "pglite") {
    const tar = fs.readFileSync(inject("pgliteTemplatePath"));
    return openDatabase({ kind: "pglite", loadDataDir: new Blob([tar]) });
  }
  const adminUrl = postgresAdminUrl();
  if (!adminUrl) throw new Error("the run has no PostgreSQL (TEST_POSTGRES=off)");
  const name = `markbook_test_${crypto.randomBytes(6).toString("hex")}`;
  const admin = await openDatabase({ kind: "postgres", url: adminUrl, poolMax: 1 });
  await admin.db.execute(sql.raw(`create database ${name} template ${inject("postgresTemplate")}`));
  const url = withDatabase(adminUrl, name);
  const database = await openDatabase({ kind: "postgres", url, poolMax: 10 });
  testDatabaseUrls.set(database.db, url);
  return {
    ...database,
    async close() {
      await database.close();
      try {
        await admin.db.execute(sql.raw(`drop database if exists ${name} with (force)`));
      } catch {
        // FORCE may not terminate an autovacuum worker that is busy in the database without a
        // superuser; a plain DROP DATABASE stops it itself (the test's own connections are closed).
        await admin.db.execute(sql.raw(`drop database if exists ${name}`));
      }
      await admin.close();
    },
  };
}

const testDatabaseUrls = new WeakMap<object, string>();

/**
 * Another connection pool on the same PostgreSQL test database, as a second app node has; on PGlite
 * (one process, one connection) the same handle.
 */
export async function openSecondHandle(database: Database): Promise<Database> {
  const url = testDatabaseUrls.get(database.db);
  if (database.kind === "pglite" || !url) return { ...database, close: async () => {} };
  return openDatabase({ kind: "postgres", url, poolMax: 10 });
}

/**
 * Runs a suite once on PGlite and once on the run's PostgreSQL (skipped, visibly, with TEST_POSTGRES=off).
 * The database is also made the process database, so REST handlers under test use it.
 */
export function describeOnEachDatabase(title: string, body: (database: () => Database) => void) {
  for (const kind of ["pglite", "postgres"] as const) {
    describe.skipIf(kind === "postgres" && !postgresAdminUrl())(`${title} [${kind}]`, () => {
      let database: Database | undefined;
      beforeAll(async () => {
        database = await createTestDatabase(kind);
        useDatabase(database);
      });
      afterAll(async () => {
        await database?.close();
      });
      body(() => {
        if (!database) throw new Error("database not ready");
        return database;
      });
    });
  }
}
