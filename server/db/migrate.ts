import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import { type Database, openDatabase, rowsOf } from "./client";

const migrationsFolder = path.resolve(process.cwd(), "drizzle");
/** The name of this version's newest migration: once migrateDatabase has run, the database's too. */
export function latestMigration(): string {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, "meta", "_journal.json"), "utf8")) as { entries: { tag: string }[] };
  return journal.entries.at(-1)!.tag;
}

/** Any constant: serialises migrations of several app instances starting at once. */
export const MIGRATION_LOCK_KEY = 7_263_401;

/** What a migration waiting for another one's lock is told (the CLI prints it; the server logs it). */
interface MigrationWait {
  /** A sentence for the operator: what is waited for, and who holds it when PostgreSQL says. */
  message: string;
}

export interface MigrateOptions {
  /** A direct connection for migrations (DATABASE_MIGRATION_URL); else the database's own URL. */
  sessionUrl?: string;
  /** Called once when another migration holds the lock, before waiting for it. */
  onWait?: (wait: MigrationWait) => void;
  /** Aborting gives up waiting (and migrating): the transaction is rolled back, nothing is kept. */
  signal?: AbortSignal;
}

export class MigrationAbortedError extends Error {
  constructor() {
    super("Stopped before the database schema was brought up to date; nothing of the migration was kept.");
    this.name = "MigrationAbortedError";
  }
}

/**
 * Applies the migrations not yet applied. On PostgreSQL, everything happens in ONE transaction on a
 * connection of its own (to `sessionUrl` when given): the transaction-scoped advisory lock, reading
 * which migrations were applied, applying the rest and recording them. A transaction holds one server
 * connection through any pooler (PgBouncer's transaction mode too), and the lock ends with it, committed,
 * rolled back or cut off: it cannot outlive the migration, whatever stands between Markbook and PostgreSQL.
 * The same as drizzle's own migrator (its table drizzle.__drizzle_migrations, its hashes and order), but
 * drizzle's reads the applied migrations and creates its table outside its transaction, before any lock.
 */
export async function migrateDatabase(database: Database, options: MigrateOptions = {}): Promise<void> {
  if (database.kind === "pglite") {
    await migratePglite(database.db as unknown as PgliteDatabase, { migrationsFolder });
    return;
  }
  const migrations = readMigrationFiles({ migrationsFolder });
  const session = await openDatabase({
    kind: "postgres",
    url: options.sessionUrl ?? database.url!,
    poolMax: 1,
    preparedStatements: database.preparedStatements,
    queryTimeoutMs: 0, // a migration may take long; waiting for the lock is said, and a signal stops it
  });
  const aborted = new Promise<never>((_, reject) => {
    const stop = () => reject(new MigrationAbortedError());
    if (options.signal?.aborted) stop();
    options.signal?.addEventListener("abort", stop, { once: true });
  });
  aborted.catch(() => {});
  try {
    const work = session.db.transaction(async (tx) => {
      const [free] = rowsOf<{ locked: boolean }>(await tx.execute(sql`select pg_try_advisory_xact_lock(${MIGRATION_LOCK_KEY}) as locked`));
      if (!free?.locked) {
        options.onWait?.({ message: await describeLockHolder(database) });
        await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
      }
      await tx.execute(sql`create schema if not exists drizzle`);
      await tx.execute(sql`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`);
      const [last] = rowsOf<{ created_at: string | number }>(
        await tx.execute(sql`select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`),
      );
      for (const migration of migrations) {
        if (last && Number(last.created_at) >= migration.folderMillis) continue;
        for (const statement of migration.sql) await tx.execute(sql.raw(statement));
        await tx.execute(sql`insert into drizzle.__drizzle_migrations ("hash", "created_at") values (${migration.hash}, ${migration.folderMillis})`);
      }
    });
    await Promise.race([work, aborted]);
  } finally {
    // On an abort this cuts the connection: PostgreSQL (or the pooler) rolls the transaction back.
    await session.close();
  }
}

/** "Waiting for …": the session holding the migration lock, as pg_locks and pg_stat_activity tell it. */
async function describeLockHolder(database: Database): Promise<string> {
  const waiting = "Waiting for another Markbook's migration to finish (it holds the migration lock, PostgreSQL advisory lock " + MIGRATION_LOCK_KEY;
  try {
    const rows = rowsOf<{ pid: number; application_name: string; client_addr: string | null; xact_start: string | null }>(
      await database.db.execute(sql`
        select a.pid, a.application_name, a.client_addr::text as client_addr, a.xact_start::text as xact_start
        from pg_locks l join pg_stat_activity a on a.pid = l.pid
        where l.locktype = 'advisory' and l.granted and l.objid = ${MIGRATION_LOCK_KEY} and l.classid = 0
        limit 1`),
    );
    const holder = rows[0];
    if (!holder) return `${waiting}). Press Ctrl-C to stop waiting.`;
    const from = holder.client_addr ? ` from ${holder.client_addr}` : "";
    const since = holder.xact_start ? `, since ${holder.xact_start}` : "";
    return `${waiting}, held by PostgreSQL process ${holder.pid}${from}${since}). Press Ctrl-C to stop waiting.`;
  } catch {
    return `${waiting}). Press Ctrl-C to stop waiting.`;
  }
}
