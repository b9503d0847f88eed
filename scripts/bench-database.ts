import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import { type Database, type Db, openDatabase } from "../server/db/client";

/** A fresh PostgreSQL database for one benchmark run (from an admin URL), and its removal. */
export async function openScratchPostgres(adminUrl: string, poolMax: number): Promise<{ database: Database; drop: () => Promise<void> }> {
  const name = `markbook_bench_${crypto.randomBytes(4).toString("hex")}`;
  const admin = await openDatabase({ kind: "postgres", url: adminUrl, poolMax: 1 });
  await admin.db.execute(sql.raw(`create database ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ kind: "postgres", url: url.toString(), poolMax });
  return {
    database,
    async drop() {
      await database.close();
      await dropScratchDatabase(admin.db, name);
      await admin.close();
    },
  };
}

/**
 * Drops a benchmark's database. FORCE cannot end an autovacuum worker busy in it (after a bench's bulk
 * writes) without a superuser; a plain DROP DATABASE then stops the worker itself.
 */
export async function dropScratchDatabase(admin: Db, name: string) {
  try {
    await admin.execute(sql.raw(`drop database if exists ${name} with (force)`));
  } catch {
    await admin.execute(sql.raw(`drop database if exists ${name}`));
  }
}
