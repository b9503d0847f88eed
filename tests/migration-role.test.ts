/**
 * Before migrating, Markbook checks that the migrating role can create markbook_app or grant it to
 * itself, and says what is missing. Checked with a real PostgreSQL role without CREATEROLE, owning a
 * database of its own that was never migrated.
 */
import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, rowsOf } from "../server/db/client";
import { migrateDatabase } from "../server/db/migrate";
import { administratorSql, checkMigratingRole } from "../server/db/migration-role";
import { ConfigError } from "../server/env";
import { openConfiguredDatabase } from "../server/startup";
import { postgresAdminUrl, withDatabase } from "./support/postgres";

const adminUrl = postgresAdminUrl();

describe.skipIf(!adminUrl)("the migrating role's power over markbook_app, checked before migrating", () => {
  const tag = crypto.randomBytes(5).toString("hex");
  const role = `markbook_norole_${tag}`;
  const password = crypto.randomBytes(12).toString("hex");
  const name = `markbook_roletest_${tag}`;
  let admin: Awaited<ReturnType<typeof openDatabase>>;
  let url: string;

  beforeAll(async () => {
    admin = await openDatabase({ kind: "postgres", url: adminUrl!, poolMax: 1 });
    await admin.db.execute(sql.raw(`create role ${role} login nocreaterole nosuperuser password '${password}'`));
    await admin.db.execute(sql.raw(`grant ${role} to current_user`)); // to make it a database's owner
    await admin.db.execute(sql.raw(`create database ${name} owner ${role}`));
    const parsed = new URL(withDatabase(adminUrl!, name));
    parsed.username = role;
    parsed.password = password;
    url = parsed.toString();
  });
  afterAll(async () => {
    await admin.db.execute(sql.raw(`drop database if exists ${name} with (force)`)).catch(() => admin.db.execute(sql.raw(`drop database if exists ${name}`)));
    await admin.db.execute(sql.raw(`drop role if exists ${role}`));
    await admin.close();
  });

  it("the start (here the CLI's) stops before migrating, with the sentence, not with a failed query", async () => {
    process.env.DATABASE_URL = url; // read by the first env() call, which is this start's
    const error = await openConfiguredDatabase("cli").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^The database role markbook_norole_\w+ cannot run Markbook's migrations: the role markbook_app exists but/);
    const probe = await openDatabase({ kind: "postgres", url, poolMax: 1 });
    try {
      // Nothing was migrated: no journal, no schema.
      const result = await probe.db.execute(sql`select to_regclass('drizzle.__drizzle_migrations') is null as untouched`);
      const [row] = rowsOf<{ untouched: boolean }>(result);
      expect(row?.untouched).toBe(true);
    } finally {
      await probe.close();
    }
  });

  it("a role that may not create the app role is told so, with the SQL an administrator runs once", async () => {
    const absent = `markbook_app_absent_${tag}`;
    const error = await checkMigratingRole(url, absent).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      `The database role ${role} cannot run Markbook's migrations: the role ${absent} does not exist and ${role} may not create ` +
        `it (it has no CREATEROLE). An administrator runs once, as a superuser: ${administratorSql(role, absent)} (or gives ${role} ` +
        `CREATEROLE). See docs/deploy.md, "The database roles".`,
    );
  });

  it("a role that holds no ADMIN OPTION on the existing markbook_app is told so before any migration runs; with it, the migrations run", async () => {
    const error = await checkMigratingRole(url).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(`the role markbook_app exists but ${role} may not grant it to itself (it holds it without ADMIN OPTION)`);
    expect((error as Error).message).toContain(`GRANT markbook_app TO ${role} WITH ADMIN OPTION;`);
    // What the check spares the admin: the migration itself fails on the grant.
    const database = await openDatabase({ kind: "postgres", url, poolMax: 2 });
    try {
      await expect(migrateDatabase(database)).rejects.toThrow();
      await admin.db.execute(sql.raw(`grant markbook_app to ${role} with admin option`));
      await expect(checkMigratingRole(url)).resolves.toBeUndefined();
      await migrateDatabase(database);
      // Once migrated, membership is what the app needs; without it the check says so.
      // CASCADE: on PostgreSQL 16 and later the migration's own GRANT markbook_app TO CURRENT_USER is a
      // second membership, granted by the role under the admin option being taken away.
      await admin.db.execute(sql.raw(`revoke markbook_app from ${role} cascade`));
      await expect(checkMigratingRole(url)).rejects.toThrow(`it is not a member of markbook_app`);
    } finally {
      await database.close();
    }
  });
});
