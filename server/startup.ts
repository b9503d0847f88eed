import { type Database, getDatabase, useDatabase } from "./db/client";
import { type LockHolderKind, acquireDataDirLock } from "./db/data-dir-lock";
import { rememberDemoSchool } from "./db/demo-school";
import { migrateDatabase } from "./db/migrate";
import { env } from "./env";
import { logger } from "./logger";
import { removeSpoolLeftovers } from "./speech/audio-upload";
import { openConfiguredStorage, removeStorageLeftovers } from "./storage/configured-storage";
import { localStorageRoot } from "./storage/local";
import { useObjectStorage } from "./storage/object-storage";

export interface OpenedDatabase {
  database: Database;
  /** Closes the database (PGlite flushes its files) and then releases the data-folder lock. */
  close(): Promise<void>;
}

/**
 * Opens the configured database for this process and brings its schema up to date. In embedded mode
 * the data folder is locked first, so that no second process ever opens the same PGlite files.
 */
export async function openConfiguredDatabase(holder: LockHolderKind): Promise<OpenedDatabase> {
  const config = env();
  const lock = config.databaseKind === "pglite" ? acquireDataDirLock(config.dataDir, holder) : null;
  let database: Database | undefined;
  try {
    database = await getDatabase();
    await migrateDatabase(database, { sessionUrl: config.DATABASE_MIGRATION_URL });
    useDatabase(database);
  } catch (error) {
    await database?.close().catch(() => {});
    lock?.release();
    throw error;
  }
  const opened = database;
  let closing: Promise<void> | undefined;
  return {
    database: opened,
    close: () =>
      (closing ??= opened.close().finally(() => {
        lock?.release();
      })),
  };
}

export interface StartedMarkbook extends OpenedDatabase {
  /** The demo school's institute id when demo data is enabled, else null. */
  demoInstituteId: string | null;
}

/**
 * Everything the server needs before it listens: the database, migrated, the configured object storage
 * installed, and the demo school if enabled.
 */
export async function startMarkbook(): Promise<StartedMarkbook> {
  const config = env();
  // Checked first: a missing bucket stops the start before the database is opened.
  const storage = await openConfiguredStorage();
  const opened = await openConfiguredDatabase("server");
  try {
    logger.info(
      config.databaseKind === "pglite"
        ? `Database: embedded PGlite in ${config.dataDir}`
        : `Database: PostgreSQL at ${databaseLocation(config.DATABASE_URL!)}`,
    );
    useObjectStorage(storage);
    logger.info(config.storage.driver === "s3" ? `Storage: S3 at ${config.storage.endpoint ?? "AWS"}` : `Storage: the folder ${localStorageRoot()}`);
    await removeCrashLeftovers(config.databaseKind === "pglite");
    let demoInstituteId: string | null = null;
    if (config.seedDemo) {
      const started = Date.now();
      const { seedDemoSchool } = await import("./db/seed"); // loaded only when needed: it brings pdf-lib
      const demo = await seedDemoSchool(opened.database.db);
      if (demo.created) logger.info(`Seeded the demo school in ${Date.now() - started} ms`);
      demoInstituteId = demo.instituteId;
      rememberDemoSchool(demo.instituteId);
    }
    return { ...opened, demoInstituteId };
  } catch (error) {
    await opened.close().catch(() => {});
    throw error;
  }
}

/** A storage folder shared with other processes: a temporary file untouched this long is left over. */
const SHARED_LEFTOVER_AGE_MS = 60 * 60 * 1000;

/**
 * Removes the temporary files a killed process left behind (half-written objects in the storage folder,
 * spooled speech uploads) and says how many. With the embedded database this process holds the DATA_DIR
 * lock, so no other process writes there and every one is a leftover; otherwise only old ones are.
 */
async function removeCrashLeftovers(dataDirLocked: boolean) {
  try {
    const storage = await removeStorageLeftovers({ olderThanMs: dataDirLocked ? 0 : SHARED_LEFTOVER_AGE_MS });
    const spool = await removeSpoolLeftovers();
    const files = storage.files + spool.files;
    if (files === 0) return;
    const bytes = storage.bytes + spool.bytes;
    logger.info(
      `Removed ${files} temporary file${files === 1 ? "" : "s"} (${bytes} bytes) left by an interrupted upload or snapshot: ` +
        `${storage.files} in the storage folder, ${spool.files} spooled speech upload${spool.files === 1 ? "" : "s"}`,
    );
  } catch (error) {
    logger.warn("Temporary files left by an earlier run could not all be removed", error);
  }
}

/** Host and database name of a PostgreSQL URL, never its credentials. */
function databaseLocation(url: string): string {
  const parsed = new URL(url);
  return `${parsed.host}${parsed.pathname}`;
}
