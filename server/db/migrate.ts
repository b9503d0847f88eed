import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import { type Database, openDatabase } from "./client";

const migrationsFolder = path.resolve(process.cwd(), "drizzle");
/** The name of this version's newest migration: once migrateDatabase has run, the database's too. */
export function latestMigration(): string {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: { tag: string }[] };
  return journal.entries.at(-1)!.tag;
}

/** Any constant: serialises migrations of several app instances starting at once. */
const MIGRATION_LOCK_KEY = 7_263_401;

/**
 * Applies the migrations not yet applied. On PostgreSQL they run on a connection of their own, to
 * `sessionUrl` when given (a direct connection, where the database's own URL goes through a pooler).
 */
export async function migrateDatabase(database: Database, options: { sessionUrl?: string } = {}): Promise<void> {
  if (database.kind === "pglite") {
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder });
    return;
  }
  // One connection of its own: an advisory lock belongs to the session that took it, so the lock, the
  // migration and the unlock must not be spread over a pool's connections (the unlock would miss, and
  // the next node to start would wait for a lock nobody releases).
  const session = await openDatabase({ kind: "postgres", url: options.sessionUrl ?? database.url!, poolMax: 1 });
  try {
    await session.db.execute(sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
    await migratePostgres(session.db as unknown as PostgresJsDatabase, { migrationsFolder });
    await session.db.execute(sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`);
  } finally {
    await session.close();
  }
}
