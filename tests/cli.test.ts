import { execFile, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as graphChildren } from "../app/graph/node/children/route";
import { signUserToken, verifyUserToken } from "../server/auth/tokens";
import { type Database, openDatabase, rowsOf, useDatabase } from "../server/db/client";
import { latestMigration } from "../server/db/migrate";
import { DataDirLockedError, LOCK_FILE_NAME, acquireDataDirLock } from "../server/db/data-dir-lock";
import { apiKeys, enrollments, users } from "../server/db/schema";
import { writePersonalNodesJob } from "../server/graph/personal-node";
import { runDueJobs } from "../server/jobs/run";
import { COST, timeoutFor } from "./support/busy-machine";
import { postgresAdminUrl, withDatabase } from "./support/postgres";

const tsx = path.resolve("node_modules/.bin/tsx");
/** Each test spawns the CLI (and some open the database to check it): its timeout counts those runs. */
const cliTimeout = (runs: number, inspections = 0, { first = false } = {}) =>
  timeoutFor((first ? COST.cliFirstRun - COST.cliRun : 0) + runs * COST.cliRun + inspections * COST.databaseOpen);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI in a child process, as an operator would. */
function markbook(args: string[], env: Record<string, string | undefined>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(tsx, ["scripts/markbook.ts", ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** Runs the CLI and returns its one line of output, failing the test with its stderr otherwise. */
async function result(args: string[], env: Record<string, string | undefined>): Promise<string> {
  const run = await markbook(args, env);
  expect(run, `markbook ${args.join(" ")}: ${run.stderr}`).toMatchObject({ code: 0 });
  expect(run.stdout, "only the result, on one line").toMatch(/^[^\n]+\n$/);
  return run.stdout.trim();
}

const tempDir = (label: string) => fs.mkdtempSync(path.join(os.tmpdir(), `markbook-cli-${label}-`));
const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Target {
  env: Record<string, string | undefined>;
  /** Opens the database the CLI wrote to, to check what it stored. */
  inspect<T>(fn: (database: Database) => Promise<T>): Promise<T>;
  cleanup(): Promise<void>;
}

function describeCommandChain(title: string, skip: boolean, prepare: () => Promise<Target>) {
  describe.skipIf(skip)(title, () => {
    let target: Target;
    const ids: Record<string, string> = {};
    const tag = crypto.randomBytes(3).toString("hex");
    const studentEmail = `pupil.${tag}@example.org`;

    beforeAll(async () => {
      target = await prepare();
    });
    afterAll(async () => {
      await target?.cleanup();
    });

    it("creates an institute, a teacher, a student and a class, and enrolls the student", { timeout: cliTimeout(6, 0, { first: true }) }, async () => {
      ids.institute = await result(["institute", "create", "--name", "Riverside High"], target.env);
      expect(ids.institute).toMatch(uuidShape);
      const user = (email: string, name: string, role: string) =>
        result(
          ["user", "create", "--email", email, "--password", "correct-horse", "--name", name, "--institute", ids.institute!, "--role", role],
          target.env,
        );
      ids.teacher = await user(`teacher.${tag}@example.org`, "Tess Teacher", "teacher");
      ids.student = await user(studentEmail, "Pat Pupil", "student");
      expect(ids.student).toMatch(uuidShape);
      ids.class = await result(
        ["class", "create", "--institute", ids.institute, "--name", "9C Science", "--teacher-email", `teacher.${tag}@example.org`],
        target.env,
      );
      expect(await result(["enroll", "--class", ids.class, "--email", studentEmail], target.env)).toBe(ids.student);
    });

    it("gives a user created on the command line their own node in their personal graph", { timeout: cliTimeout(0, 1) }, async () => {
      const response = await target.inspect(async (database) => {
        useDatabase(database); // the route reads the process database
        // The job the creation queued, as any server's worker runs it.
        await runDueJobs(database.db, { kinds: [writePersonalNodesJob] });
        const [teacher] = await database.db.select().from(users).where(eq(users.id, ids.teacher!));
        const token = await signUserToken({ userId: teacher!.id, ttlSeconds: 600 });
        const query = new URLSearchParams({ neo4j_node_id: teacher!.id, neo4j_db_name: teacher!.user_db_name });
        const answer = await graphChildren(new Request(`http://localhost/graph/node/children?${query}`, { headers: { authorization: `Bearer ${token}` } }));
        return { status: answer.status, body: await answer.json() };
      });
      expect(response).toEqual({ status: 200, body: { status: "success", children: [] } });
    });

    it("migrates on its own and prints the newest migration, which the database has applied", async () => {
      expect(await result(["migrate"], target.env)).toBe(latestMigration());
      const journal = JSON.parse(fs.readFileSync("drizzle/meta/_journal.json", "utf8")) as { entries: unknown[] };
      const applied = await target.inspect(({ db }) => db.execute(sql`select count(*)::int as count from drizzle.__drizzle_migrations`));
      expect(rowsOf<{ count: number }>(applied)[0]!.count).toBe(journal.entries.length);
    });

    it("mints a user token whose subject is the user", { timeout: cliTimeout(1) }, async () => {
      const token = await result(["token", "--email", studentEmail, "--ttl-seconds", "120"], target.env);
      const claims = await verifyUserToken(token);
      expect(claims.userId).toBe(ids.student);
    });

    it("prints a new API key once and stores only its hash", { timeout: cliTimeout(1, 1) }, async () => {
      const key = await result(["api-key", "create", "--name", "Lab tablets"], target.env);
      expect(key).toMatch(/^mk_[A-Za-z0-9_-]{43}$/);
      const stored = await target.inspect(({ db }) => db.select().from(apiKeys).where(eq(apiKeys.name, "Lab tablets")));
      expect(stored).toHaveLength(1);
      expect(stored[0]!.key_hash).toBe(crypto.createHash("sha256").update(key).digest("hex"));
      expect(key.startsWith(stored[0]!.prefix)).toBe(true);
      expect(JSON.stringify(stored)).not.toContain(key);
    });

    it("lists API keys and revokes one by id", { timeout: cliTimeout(3, 1) }, async () => {
      const key = await result(["api-key", "create", "--name", "Old laptop"], target.env);
      const listing = (await markbook(["api-key", "list"], target.env)).stdout;
      const line = listing.split("\n").find((row) => row.endsWith("\tOld laptop"));
      expect(line).toBeDefined();
      const [id, prefix, state] = line!.split("\t");
      expect(key.startsWith(prefix!)).toBe(true);
      expect(state).toBe("active");
      expect(await result(["api-key", "revoke", "--id", id!], target.env)).toBe(id);
      const revoked = await target.inspect(({ db }) => db.select().from(apiKeys).where(eq(apiKeys.id, id!)));
      expect(revoked[0]!.revoked_at).toBeInstanceOf(Date);
    });

    it("makes installation keys by default and a school's key with --institute; lists the owner; revokes either", { timeout: cliTimeout(6, 2) }, async () => {
      const installationKey = await result(["api-key", "create", "--name", "Operator's key"], target.env);
      const schoolKey = await result(["api-key", "create", "--name", "Riverside lab", "--institute", ids.institute!], target.env);
      const listing = async (extra: string[] = []) => {
        const lines = (await markbook(["api-key", "list", ...extra], target.env)).stdout.trim().split("\n");
        return (name: string) => lines.find((row) => row.endsWith(`\t${name}`))?.split("\t");
      };
      const everyKey = await listing();
      const [installationId, installationPrefix, ...installationRest] = everyKey("Operator's key")!;
      const [schoolId, schoolPrefix, ...schoolRest] = everyKey("Riverside lab")!;
      expect(installationRest).toEqual(["active", "installation", "Operator's key"]);
      expect(schoolRest).toEqual(["active", ids.institute, "Riverside lab"]);
      expect(installationKey.startsWith(installationPrefix!)).toBe(true);
      expect(schoolKey.startsWith(schoolPrefix!)).toBe(true);
      const schoolKeys = await listing(["--institute", ids.institute!]);
      expect(schoolKeys("Riverside lab")?.[0]).toBe(schoolId);
      expect(schoolKeys("Operator's key")).toBeUndefined();

      expect(await result(["api-key", "revoke", "--id", schoolId!], target.env)).toBe(schoolId);
      const stored = await target.inspect(({ db }) => db.select().from(apiKeys));
      expect(stored.find((row) => row.id === installationId)).toMatchObject({ institute_id: null, revoked_at: null });
      expect(stored.find((row) => row.id === schoolId)).toMatchObject({ institute_id: ids.institute, revoked_at: expect.any(Date) });

      const unknown = await markbook(["api-key", "create", "--name", "Nowhere", "--institute", crypto.randomUUID()], target.env);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/institute not found/i);
      expect(await target.inspect(({ db }) => db.select().from(apiKeys).where(eq(apiKeys.name, "Nowhere")))).toEqual([]);
    });

    it("deactivates a user and makes them active again", { timeout: cliTimeout(3, 2) }, async () => {
      expect(await result(["user", "deactivate", "--email", studentEmail], target.env)).toBe(ids.student);
      const deactivatedAt = () =>
        target.inspect(async ({ db }) => (await db.select({ at: users.deactivated_at }).from(users).where(eq(users.id, ids.student!)))[0]!.at);
      expect(await deactivatedAt()).toBeInstanceOf(Date);
      expect(await result(["user", "reactivate", "--email", studentEmail], target.env)).toBe(ids.student);
      expect(await deactivatedAt()).toBeNull();
      const nobody = await markbook(["user", "deactivate", "--email", `nobody.${tag}@example.org`], target.env);
      expect(nobody.code).toBe(1);
      expect(nobody.stderr).toContain("--email: no user with email");
    });

    it("refuses an unknown role on stderr, exits 1 and creates nobody", { timeout: cliTimeout(1, 1) }, async () => {
      const email = `wizard.${tag}@example.org`;
      const run = await markbook(
        ["user", "create", "--email", email, "--password", "correct-horse", "--name", "Wiz", "--institute", ids.institute!, "--role", "wizard"],
        target.env,
      );
      expect(run.code).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(/--role wizard: .*school_admin/);
      const state = await target.inspect(async ({ db }) => ({
        wizard: await db.select().from(users).where(sql`lower(${users.email}) = ${email}`),
        enrollment: await db
          .select()
          .from(enrollments)
          .where(and(eq(enrollments.class_id, ids.class!), eq(enrollments.student_id, ids.student!))),
      }));
      expect(state.wizard).toHaveLength(0);
      expect(state.enrollment).toMatchObject([{ active: true }]);
    });
  });
}

describeCommandChain("markbook CLI on the embedded database", false, async () => {
  const dataDir = tempDir("embedded");
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: undefined },
    async inspect(fn) {
      // The test takes the lock too, exactly as the server and the CLI do.
      const lock = acquireDataDirLock(dataDir, "cli");
      const database = await openDatabase({ kind: "pglite", dataDir: path.join(dataDir, "pglite") });
      try {
        return await fn(database);
      } finally {
        await database.close();
        lock.release();
      }
    },
    async cleanup() {
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

describeCommandChain("markbook CLI on PostgreSQL (DATABASE_URL)", !postgresAdminUrl(), async () => {
  const adminUrl = postgresAdminUrl()!;
  const name = `markbook_cli_${crypto.randomBytes(5).toString("hex")}`;
  const admin = await openDatabase({ kind: "postgres", url: adminUrl, poolMax: 1 });
  // A fresh, empty database: the CLI brings it up to date itself.
  await admin.db.execute(sql.raw(`create database ${name}`));
  const url = withDatabase(adminUrl, name);
  const dataDir = tempDir("postgres");
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: url },
    async inspect(fn) {
      const database = await openDatabase({ kind: "postgres", url, poolMax: 1 });
      try {
        return await fn(database);
      } finally {
        await database.close();
      }
    },
    async cleanup() {
      await admin.db.execute(sql.raw(`drop database if exists ${name} with (force)`));
      await admin.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

describe("the embedded data folder lock", () => {
  it("makes the CLI refuse, untouched, while a live process holds the data folder", { timeout: cliTimeout(1) }, async () => {
    const dataDir = tempDir("locked");
    fs.writeFileSync(path.join(dataDir, LOCK_FILE_NAME), `${process.pid}\n`);
    const run = await markbook(["institute", "create", "--name", "Blocked"], { DATA_DIR: dataDir, DATABASE_URL: undefined });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`The Markbook server (pid ${process.pid}) is using the embedded database in ${dataDir}`);
    expect(run.stderr).toMatch(/DATABASE_URL/);
    expect(fs.readdirSync(dataDir)).toEqual([LOCK_FILE_NAME]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("tells `token` what to do instead while the server holds the data folder (the README's curl example)", { timeout: cliTimeout(1) }, async () => {
    const dataDir = tempDir("locked-token");
    fs.writeFileSync(path.join(dataDir, LOCK_FILE_NAME), `${process.pid}\nserver\n`);
    const run = await markbook(["token", "--email", "teacher@northfield.example"], { DATA_DIR: dataDir, DATABASE_URL: undefined });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`The Markbook server (pid ${process.pid}) is using the embedded database in ${dataDir}`);
    expect(run.stderr).toContain("make a personal access token under Settings");
    expect(run.stderr).toContain("stop the server, run this command, and start the server again");
    expect(fs.readdirSync(dataDir)).toEqual([LOCK_FILE_NAME]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("takes over a lock left by a process that is gone, and releases only its own", () => {
    const dataDir = tempDir("stale");
    const gone = spawnSync(process.execPath, ["-e", ""]).pid;
    const file = path.join(dataDir, LOCK_FILE_NAME);
    fs.writeFileSync(file, `${gone}\nserver\n`);
    const lock = acquireDataDirLock(dataDir, "server");
    expect(fs.readFileSync(file, "utf8")).toBe(`${process.pid}\nserver\n`);
    // Held by this process: a second taker in the same process is refused too.
    expect(() => acquireDataDirLock(dataDir, "cli")).toThrow(DataDirLockedError);
    lock.release();
    expect(fs.existsSync(file)).toBe(false);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});
