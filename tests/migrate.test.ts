/**
 * Migrations on PostgreSQL run on a connection of their own: to DATABASE_MIGRATION_URL when given (a
 * direct connection beside a transaction-mode pooler), else to the database's own URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../server/db/client";
import { migrateDatabase } from "../server/db/migrate";
import { createTestDatabase } from "./support/database";
import { postgresAdminUrl } from "./support/postgres";

/** A URL nothing listens on: a connection to it is refused at once. */
const nowhere = "postgres://markbook:markbook@127.0.0.1:1/markbook";

describe.skipIf(!postgresAdminUrl())("migrateDatabase on PostgreSQL", () => {
  let database: Database;
  beforeAll(async () => {
    database = await createTestDatabase("postgres");
  });
  afterAll(() => database?.close());

  it("migrates on the database's own URL when no session URL is given", async () => {
    await expect(migrateDatabase(database)).resolves.toBeUndefined();
  });

  it("migrates on the session URL when one is given, not on the database's own", async () => {
    await expect(migrateDatabase(database, { sessionUrl: nowhere })).rejects.toThrow();
    await expect(migrateDatabase({ ...database, url: nowhere }, { sessionUrl: database.url })).resolves.toBeUndefined();
  });
});
