/**
 * Markbook behind a real PgBouncer (Debian's package, 1.18: no max_prepared_statements) in transaction
 * mode: migrations through the pooler (two nodes at once, then a third), two nodes' concurrent traffic,
 * the start-up check that names DATABASE_PREPARED_STATEMENTS, the query deadline, and `markbook migrate`
 * waiting for another's lock, saying so, and stopping on Ctrl-C. Skipped, with the reason in its title,
 * on a machine without PgBouncer or without PostgreSQL.
 */
import { type ChildProcess, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, QueryTimeoutError, openDatabase, rowsOf } from "../server/db/client";
import { PREPARED_STATEMENTS_LOST, checkDatabaseConnection } from "../server/db/connection-check";
import { MIGRATION_LOCK_KEY, latestMigration, migrateDatabase } from "../server/db/migrate";
import { ConfigError } from "../server/env";
import { DATABASE_TOO_SLOW, toAppError } from "../server/errors";
import { createCaller } from "../server/trpc/root";
import { COST, timeoutFor } from "./support/busy-machine";
import { createSchool } from "./support/fixtures";
import { type RunningPgbouncer, pgbouncerMissing, startPgbouncer } from "./support/pgbouncer";
import { postgresAdminUrl, withDatabase } from "./support/postgres";

const adminUrl = postgresAdminUrl();

/**
 * The SQL docs/deploy.md's "The database roles" tells an administrator to run once, word for word, with
 * the connecting role's name where the document says `markbook`.
 */
function deployAdministratorSql(role: string): string[] {
  const deploy = fs.readFileSync(path.join(import.meta.dirname, "../docs/deploy.md"), "utf8");
  const section = deploy.slice(deploy.indexOf("### The database roles"));
  const block = /```sql\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error("docs/deploy.md has no SQL block under \"The database roles\"");
  return block
    .split(";")
    .map((statement) => statement.trim())
    .filter((statement) => statement !== "")
    .map((statement) => statement.replace(/\bTO markbook\b/, `TO ${role}`));
}
const skipReason = pgbouncerMissing() ?? (adminUrl ? null : "no PostgreSQL for this run (TEST_POSTGRES=off)");
if (skipReason) console.warn(`tests/pgbouncer.test.ts skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)(`Markbook behind PgBouncer in transaction mode${skipReason ? ` (skipped: ${skipReason})` : ""}`, () => {
  const name = `markbook_pgbouncer_${crypto.randomBytes(6).toString("hex")}`;
  let admin: Database;
  let direct: Database;
  let bouncer: RunningPgbouncer;
  let pooledUrl: string;
  const nodes: Database[] = [];

  /** A node's pool through the pooler, as a node opens it with DATABASE_PREPARED_STATEMENTS=off. */
  const openNode = async (options: { preparedStatements?: boolean; queryTimeoutMs?: number; poolMax?: number } = {}) => {
    const node = await openDatabase({ kind: "postgres", url: pooledUrl, poolMax: 10, preparedStatements: false, ...options });
    nodes.push(node);
    return node;
  };

  // The nodes connect as docs/deploy.md prescribes: a role of their own that owns the database, with
  // neither CREATEROLE nor superuser, given markbook_app by the administrator's SQL of "The database roles".
  const owner = `mb_owner_${crypto.randomBytes(4).toString("hex")}`;
  const ownerPassword = crypto.randomBytes(12).toString("hex");

  beforeAll(async () => {
    admin = await openDatabase({ kind: "postgres", url: adminUrl!, poolMax: 1 });
    await admin.db.execute(sql.raw(`create role ${owner} login nosuperuser nocreaterole nobypassrls password '${ownerPassword}'`));
    await admin.db.execute(sql.raw(`grant ${owner} to current_user`)); // to make it the database's owner
    // An empty database: the migrations through the pooler make all of it.
    await admin.db.execute(sql.raw(`create database ${name} owner ${owner}`));
    for (const statement of deployAdministratorSql(owner)) {
      // markbook_app is cluster-wide: this server's earlier runs made it already (the document says so).
      if (/^CREATE ROLE markbook_app\b/i.test(statement) && (await appRoleExists())) continue;
      await admin.db.execute(sql.raw(statement));
    }
    const ownerUrl = new URL(withDatabase(adminUrl!, name));
    ownerUrl.username = owner;
    ownerUrl.password = ownerPassword;
    direct = await openDatabase({ kind: "postgres", url: withDatabase(adminUrl!, name), poolMax: 2 });
    bouncer = await startPgbouncer(ownerUrl.toString(), { poolSize: 4 });
    pooledUrl = bouncer.through(ownerUrl.toString());
  });
  afterAll(async () => {
    for (const node of nodes) await node.close().catch(() => {});
    await direct?.close();
    await bouncer?.stop();
    await admin?.db.execute(sql.raw(`drop database if exists ${name} with (force)`)).catch(() => {});
    await admin?.db.execute(sql.raw(`drop role if exists ${owner}`)).catch(() => {});
    await admin?.close();
  });

  const appRoleExists = async () => rowsOf(await admin.db.execute(sql`select 1 from pg_roles where rolname = 'markbook_app'`)).length > 0;

  const migrationLocks = async () =>
    Number(
      rowsOf<{ count: string }>(
        await direct.db.execute(sql`select count(*) as count from pg_locks where locktype = 'advisory' and objid = ${MIGRATION_LOCK_KEY}`),
      )[0]!.count,
    );

  it("migrates through the pooler, two nodes at once and a third after them, and leaves no lock behind", { timeout: timeoutFor(60) }, async () => {
    const [first, second, third, load] = [await openNode(), await openNode(), await openNode(), await openNode({ poolMax: 6 })];
    // Other traffic meanwhile, so that the pooler hands each transaction whichever server connection is
    // free, as in production (bounded: at most 5,000 rounds of 6 queries, stopped when the migrations end).
    let migrating = true;
    const traffic = (async () => {
      for (let round = 0; round < 5_000 && migrating; round += 1) {
        await Promise.all(Array.from({ length: 6 }, () => load.db.execute(sql`select 1`)));
      }
    })();
    try {
      await Promise.all([migrateDatabase(first), migrateDatabase(second)]);
      await migrateDatabase(third);
    } finally {
      migrating = false;
      await traffic;
    }
    const applied = rowsOf<{ count: string }>(await direct.db.execute(sql`select count(*) as count from drizzle.__drizzle_migrations`));
    const journal = (await import("../drizzle/meta/_journal.json")).default as { entries: unknown[] };
    expect(Number(applied[0]!.count)).toBe(journal.entries.length);
    expect(await migrationLocks()).toBe(0);
  });

  it("serves two nodes' concurrent traffic through the pooler without an error", { timeout: timeoutFor(60) }, async () => {
    const [nodeA, nodeB] = [await openNode(), await openNode()];
    for (const node of [nodeA, nodeB]) await checkDatabaseConnection(node, { concurrency: 10 });
    // The nodes are the document's role, not the suite's: no CREATEROLE, no superuser.
    const [who] = rowsOf<{ name: string; createrole: boolean; superuser: boolean }>(
      await nodeA.db.execute(sql`select current_user as name, rolcreaterole as createrole, rolsuper as superuser from pg_roles where rolname = current_user`),
    );
    expect(who).toEqual({ name: owner, createrole: false, superuser: false });
    const school = await createSchool(nodeA.db, "Pooled");
    const as = (node: Database, userId: string) => createCaller({ db: node.db, user: { id: userId } });
    // Bounded: 40 requests in all, 20 at a time, alternating nodes and people.
    for (let wave = 0; wave < 2; wave += 1) {
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, async (_, index) => {
          const node = index % 2 === 0 ? nodeA : nodeB;
          if (index % 4 === 0) return as(node, school.admin.id).classes.create({ name: `Pooled ${wave}-${index}` });
          if (index % 4 === 1) return as(node, school.teacher.id).exam.templates.create({ title: `Pooled ${wave}-${index}`, page_count: 2 });
          return as(node, school.admin.id).classes.list();
        }),
      );
      expect(results.filter((result) => result.status === "rejected")).toEqual([]);
    }
    const classes = (await as(nodeB, school.admin.id).classes.list()).classes.filter((row) => row.name.startsWith("Pooled "));
    expect(classes).toHaveLength(10);
  });

  it("refuses to start with prepared statements through a pooler that loses them, naming the setting", { timeout: timeoutFor(30) }, async () => {
    const node = await openNode({ preparedStatements: true });
    const failure = await checkDatabaseConnection(node, { concurrency: 10 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toBe(PREPARED_STATEMENTS_LOST);
    expect(PREPARED_STATEMENTS_LOST).toContain("DATABASE_PREPARED_STATEMENTS=off");
  });

  it("`markbook migrate` with prepared statements through that pooler stops at start with the sentence", { timeout: timeoutFor(COST.cliRun + 20) }, async () => {
    const run = await runMarkbook(["migrate"], { DATABASE_URL: pooledUrl, DATABASE_PREPARED_STATEMENTS: undefined, DATABASE_MIGRATION_URL: undefined }).done;
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toContain(`markbook: ${PREPARED_STATEMENTS_LOST}`);
  });

  it("cancels a query past its deadline through the pooler, and the connection serves the next one", { timeout: timeoutFor(30) }, async () => {
    const node = await openNode({ queryTimeoutMs: 300, poolMax: 1 });
    const failure = await node.db.execute(sql`select pg_sleep(600)`).catch((error: unknown) => error);
    expect((failure as { cause?: unknown }).cause).toBeInstanceOf(QueryTimeoutError);
    // A request that meets it is answered 503 with a sentence, not a 500.
    expect(toAppError(failure)).toMatchObject({ status: 503, message: DATABASE_TOO_SLOW });
    // The one connection answers again: the cancel reached PostgreSQL through the pooler (else this waits 10 minutes).
    const [row] = rowsOf<{ n: number }>(await node.db.execute(sql`select 1 as n`));
    expect(row?.n).toBe(1);
  });

  it("times out a query waiting for a pooled connection another holds, rather than waiting for ever", { timeout: timeoutFor(30) }, async () => {
    const holder = await openNode({ poolMax: 1 });
    const waiting = await openNode({ poolMax: 1, queryTimeoutMs: 300 });
    // Every one of the pooler's 4 server connections busy in a transaction; a fifth waits in the pooler.
    const holders = await Promise.all(Array.from({ length: 4 }, () => openNode({ poolMax: 1 })));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const started: Promise<void>[] = [];
    const held = holders.map((node) => {
      let begun!: () => void;
      started.push(new Promise<void>((resolve) => (begun = resolve)));
      return node.db.transaction(async (tx) => {
        await tx.execute(sql`select 1`);
        begun();
        await released;
      });
    });
    try {
      await Promise.all(started);
      expect(await timeoutOf(waiting.db.execute(sql`select 1`))).toBeInstanceOf(QueryTimeoutError);
    } finally {
      release();
      await Promise.all(held);
    }
    await expect(holder.db.execute(sql`select 1`)).resolves.toBeDefined();
  });

  it("keeps hostile statement parameters intact through the pooler without prepared statements", { timeout: timeoutFor(60) }, async () => {
    const node = await openNode();
    await fc.assert(
      // Four at once outside any transaction: an unnamed statement's Parse and its Bind must reach the same server.
      fc.asyncProperty(fc.array(fc.string({ unit: "binary", maxLength: 200 }).filter((text) => !text.includes("\u0000")), { minLength: 4, maxLength: 4 }), async (texts) => {
        const echoed = await Promise.all(texts.map(async (text) => rowsOf<{ echoed: string }>(await node.db.execute(sql`select ${text}::text as echoed`))[0]?.echoed));
        expect(echoed).toEqual(texts);
      }),
      { numRuns: 50 },
    );
  });

  it("`markbook migrate` waiting for another's lock through the pooler says so, and stops on Ctrl-C", { timeout: timeoutFor(3 * COST.cliRun + 30) }, async () => {
    // Another migration holding the lock: a transaction on a direct connection.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = direct.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
      locked();
      await released;
    });
    await isLocked;
    const env = { DATABASE_URL: pooledUrl, DATABASE_PREPARED_STATEMENTS: "off", DATABASE_MIGRATION_URL: undefined };
    try {
      const cli = runMarkbook(["migrate"], env);
      await cli.stderrIncludes("Waiting for another Markbook's migration");
      cli.child.kill("SIGINT");
      const run = await cli.done;
      expect(run.stderr).toContain(`advisory lock ${MIGRATION_LOCK_KEY}`);
      expect(run.stderr).toContain("Press Ctrl-C to stop waiting.");
      expect(run.stderr).toContain("Stopped before the database schema was brought up to date");
      expect(run.code).toBe(130);
      expect(run.stdout).toBe("");
    } finally {
      release();
      await holding;
    }
    // The lock released, the same command goes through.
    const again = await runMarkbook(["migrate"], env).done;
    expect(again, again.stderr).toMatchObject({ code: 0, stdout: `${latestMigration()}\n` });
    expect(await migrationLocks()).toBe(0);
  });
});

/** The QueryTimeoutError `query` failed with (drizzle wraps the driver's error as its cause), else what it gave. */
async function timeoutOf(query: Promise<unknown>): Promise<unknown> {
  try {
    return await query;
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof QueryTimeoutError ? cause : error;
  }
}

/** The real CLI in a child process (node with tsx's loader, so that a signal reaches it, not a wrapper). */
function runMarkbook(args: string[], env: Record<string, string | undefined>) {
  const childEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...process.env, ...env })) if (value !== undefined) childEnv[key] = value;
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "scripts/markbook.ts", ...args], { env: childEnv as NodeJS.ProcessEnv });
  let stdout = "";
  let stderr = "";
  const watchers: { text: string; resolve: () => void }[] = [];
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const watcher of watchers.filter((w) => stderr.includes(w.text))) watcher.resolve();
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once("close", (code) => resolve({ code, stdout, stderr })),
  );
  return {
    child,
    done,
    stderrIncludes: (text: string) =>
      new Promise<void>((resolve, reject) => {
        if (stderr.includes(text)) return resolve();
        watchers.push({ text, resolve });
        void done.then((run) => reject(new Error(`markbook exited (${run.code}) before saying "${text}": ${run.stderr}`)));
      }),
  };
}
