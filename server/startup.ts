import { type Database, getDatabase, useDatabase } from "./db/client";
import { type LockHolderKind, acquireDataDirLock } from "./db/data-dir-lock";
import { rememberDemoSchool } from "./demo/school";
import { checkDatabaseConnection } from "./db/connection-check";
import { type MigrateOptions, migrateDatabase } from "./db/migrate";
import { checkMigratingRole } from "./db/migration-role";
import { env } from "./env";
import { logger } from "./logger";
import { startupLog } from "./startup-log";
import { removeSpoolLeftovers } from "./speech/audio-upload";
import { openConfiguredStorage, removeStorageLeftovers } from "./storage/configured-storage";
import { localStorageRoot } from "./storage/local";
import { useObjectStorage } from "./storage/object-storage";
import { workerImaging } from "./exam/intake/imaging";
import { setIntakeImaging } from "./exam/intake/imaging-port";
import { markedPdfWorker } from "./exam/returns/marked-pdf/index";

export interface OpenedDatabase {
  database: Database;
  /** Closes the database (PGlite flushes its files) and then releases the data-folder lock. */
  close(): Promise<void>;
}

/**
 * Opens the configured database for this process and brings its schema up to date. In embedded mode
 * the data folder is locked first, so that no second process ever opens the same PGlite files.
 */
export async function openConfiguredDatabase(
  holder: LockHolderKind,
  migration: Pick<MigrateOptions, "onWait" | "signal"> = {},
): Promise<OpenedDatabase> {
  const config = env();
  const log = startupLog();
  const lock = config.databaseKind === "pglite" ? acquireDataDirLock(config.dataDir, holder) : null;
  let database: Database | undefined;
  try {
    const where =
      config.databaseKind === "pglite" ? `embedded PGlite in ${config.dataDir}` : `PostgreSQL at ${databaseLocation(config.DATABASE_URL!)}`;
    database = await log.step("database", `opening ${where}`, async () => {
      const configured = await getDatabase();
      // It behaves as configured (prepared statements kept), or the start stops with a sentence naming the setting.
      await checkDatabaseConnection(configured, { concurrency: config.DATABASE_POOL_MAX });
      return configured;
    });
    const opened = database;
    await log.step("migrations", "bringing the database schema up to date", async () => {
      // First, that the migrating role may create or grant markbook_app: else a sentence, not "Failed query: CREATE ROLE".
      if (config.databaseKind === "postgres") await checkMigratingRole(config.DATABASE_MIGRATION_URL ?? config.DATABASE_URL!);
      await migrateDatabase(opened, {
        sessionUrl: config.DATABASE_MIGRATION_URL,
        onWait: migration.onWait ?? ((wait) => logger.warn(wait.message)),
        signal: migration.signal,
      });
    });
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
  const log = startupLog();
  // Checked first: a missing bucket stops the start before the database is opened.
  const where = config.storage.driver === "s3" ? `S3 at ${config.storage.endpoint ?? "AWS"}` : `the folder ${localStorageRoot()}`;
  const storage = await log.step("storage", `opening the file storage (${where})`, () => openConfiguredStorage());
  const opened = await openConfiguredDatabase("server");
  try {
    useObjectStorage(storage);
    // Reading scanned piles, stamping printed scripts and cropping names run in a worker thread, started on first use.
    setIntakeImaging(workerImaging());
    // The marked scripts' PDFs (issue 35) likewise: made here so the routes' bundles find this one (its process starts on first use).
    markedPdfWorker();
    await removeCrashLeftovers(config.databaseKind === "pglite"); // after the DATA_DIR lock: see there
    let demoInstituteId: string | null = null;
    if (config.seedDemo) {
      const demo = await log.step(
        "seed",
        "making sure the demo school is there",
        async () => {
          const { seedDemoSchool } = await import("./demo/seed"); // loaded only when needed: it brings pdf-lib
          return seedDemoSchool(opened.database.db);
        },
        (result) => (result.created ? "created the demo school" : "already there"),
      );
      demoInstituteId = demo.instituteId;
      rememberDemoSchool(demo.instituteId);
    } else {
      log.skipped("seed", "SEED_DEMO=false");
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
