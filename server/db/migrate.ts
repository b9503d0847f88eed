import path from "node:path";
import { sql } from "drizzle-orm";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import type { Database } from "./client";

const migrationsFolder = path.resolve(process.cwd(), "drizzle");
/** Any constant: serialises migrations of several app instances starting at once. */
const MIGRATION_LOCK_KEY = 7_263_401;

export async function migrateDatabase(database: Database): Promise<void> {
  if (database.kind === "pglite") {
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder });
    return;
  }
  await database.db.execute(sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
  try {
    await migratePostgres(database.db as unknown as PostgresJsDatabase, { migrationsFolder });
  } finally {
    await database.db.execute(sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`);
  }
}
