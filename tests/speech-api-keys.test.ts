import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { migrate } from "drizzle-orm/pglite/migrator";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, rowsOf } from "../server/db/client";
import { asService } from "../server/db/rls";
import { institutes } from "../server/db/schema";
import { createInstitute } from "../server/identity/institutes";
import { createApiKey, listApiKeys, revokeApiKey, verifyApiKey } from "../server/identity/api-keys";
import { describeOnEachDatabase } from "./support/database";
import { type RunningSpeechServer, startSpeechServer, testSpeechConfig } from "./support/speech-server";

describeOnEachDatabase("speech API keys", (database) => {
  let server: RunningSpeechServer;
  beforeAll(async () => {
    server = await startSpeechServer(testSpeechConfig());
  });
  afterAll(async () => {
    await server?.close();
  });

  const withService = <T>(fn: Parameters<typeof asService<T>>[1]) => asService(database().db, fn);
  const listModels = (key: string) => fetch(`${server.baseURL}/models`, { headers: { authorization: `Bearer ${key}` } });

  it("stores only a hash and a short prefix; the key verifies until it is revoked", async () => {
    const created = await withService((tx) => createApiKey(tx, { name: "Dictation" }));
    expect(created.key).toMatch(/^mk_[A-Za-z0-9_-]{43}$/);
    expect(created.key.startsWith(created.prefix)).toBe(true);
    const listed = (await withService((tx) => listApiKeys(tx))).find((row) => row.id === created.id);
    expect(listed).toMatchObject({ name: "Dictation", prefix: created.prefix, revoked_at: null });
    expect(JSON.stringify(listed)).not.toContain(created.key);

    expect(await withService((tx) => verifyApiKey(tx, created.key))).toMatchObject({ id: created.id });
    expect(await withService((tx) => verifyApiKey(tx, `${created.key}x`))).toBeNull();
    expect(await withService((tx) => verifyApiKey(tx, created.key.replace(/^mk_/, "sk_")))).toBeNull();

    const revoked = await withService((tx) => revokeApiKey(tx, { id: created.id }));
    expect(revoked.revoked_at).toBeInstanceOf(Date);
    // Revoking twice keeps the first date.
    const again = await withService((tx) => revokeApiKey(tx, { id: created.id }));
    expect(again.revoked_at!.getTime()).toBe(revoked.revoked_at!.getTime());
    expect(await withService((tx) => verifyApiKey(tx, created.key))).toBeNull();
  });

  it("an institute's key belongs to it: an unknown institute is 404, and the key goes when its school is deleted", async () => {
    await expect(withService((tx) => createApiKey(tx, { name: "Nowhere", instituteId: crypto.randomUUID() }))).rejects.toMatchObject({ status: 404 });
    expect((await withService((tx) => listApiKeys(tx))).map((key) => key.name)).not.toContain("Nowhere");

    const institute = await withService((tx) => createInstitute(tx, { name: `Closing ${crypto.randomUUID()}` }));
    const created = await withService((tx) => createApiKey(tx, { name: "Closing school's key", instituteId: institute.id }));
    expect(created.institute_id).toBe(institute.id);
    expect((await withService((tx) => listApiKeys(tx, { instituteId: institute.id }))).map((key) => key.id)).toEqual([created.id]);
    await withService((tx) => tx.delete(institutes).where(eq(institutes.id, institute.id)));
    // Never left behind as an installation key.
    expect(await withService((tx) => verifyApiKey(tx, created.key))).toBeNull();
    expect((await withService((tx) => listApiKeys(tx))).map((key) => key.id)).not.toContain(created.id);
  });

  it("revoking an unknown key is 404", async () => {
    await expect(withService((tx) => revokeApiKey(tx, { id: "00000000-0000-4000-8000-000000000000" }))).rejects.toMatchObject({ status: 404 });
  });

  it("the /v1 Bearer check: 200 with a live key, 401 invalid_api_key without, with a wrong one and after revocation", async () => {
    const created = await withService((tx) => createApiKey(tx, { name: "HTTP" }));
    expect((await listModels(created.key)).status).toBe(200);
    for (const response of [
      await fetch(`${server.baseURL}/models`),
      await fetch(`${server.baseURL}/models`, { headers: { authorization: `Basic ${btoa("a:b")}` } }),
      await listModels("mk_wrong"),
    ]) {
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({
        error: { message: expect.any(String), type: "authentication_error", code: "invalid_api_key", param: null },
      });
    }
    await withService((tx) => revokeApiKey(tx, { id: created.id }));
    expect((await listModels(created.key)).status).toBe(401);
  });
});

describe("migration 0008: existing keys go to their creator's school", () => {
  it("gives a key the institute of a creator who is a school admin of exactly one; every other key stays an installation key", { timeout: 180_000 }, async () => {
    // The migrations up to 0007 in a folder of their own, then the real folder (0008 on top).
    const before = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-migrations-"));
    const journal = JSON.parse(fs.readFileSync("drizzle/meta/_journal.json", "utf8")) as { entries: { idx: number; tag: string }[] };
    journal.entries = journal.entries.filter((entry) => entry.idx < 8);
    fs.mkdirSync(path.join(before, "meta"));
    fs.writeFileSync(path.join(before, "meta", "_journal.json"), JSON.stringify(journal));
    for (const entry of journal.entries) fs.copyFileSync(`drizzle/${entry.tag}.sql`, path.join(before, `${entry.tag}.sql`));

    const database = await openDatabase({ kind: "pglite" });
    try {
      const db = database.db as unknown as PgliteDatabase;
      await migrate(db, { migrationsFolder: before });
      // Ids and rows written as SQL: the schema in TypeScript already has the 0008 columns.
      const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
      const [soleAdmin, adminOfBoth, teacher] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
      await db.execute(sql`insert into institutes (id, name, graph_db_name, curriculum_db_name)
        values (${a}, 'A', 'graph-a', 'curriculum-a'), (${b}, 'B', 'graph-b', 'curriculum-b')`);
      for (const [id, name] of [[soleAdmin, "sole"], [adminOfBoth, "both"], [teacher, "teacher"]] as const) {
        await db.execute(sql`insert into users (id, email, user_type, username, full_name, display_name, user_db_name)
          values (${id}, ${`${name}@example.org`}, 'staff', ${name}, ${name}, ${name}, ${`user-${name}`})`);
      }
      // The sole admin is also a teacher of B: only school_admin memberships count.
      await db.execute(sql`insert into institute_memberships (institute_id, user_id, role) values
        (${a}, ${soleAdmin}, 'school_admin'), (${b}, ${soleAdmin}, 'teacher'),
        (${a}, ${adminOfBoth}, 'school_admin'), (${b}, ${adminOfBoth}, 'school_admin'), (${a}, ${teacher}, 'teacher')`);
      const keys = { sole: soleAdmin, both: adminOfBoth, teacher, cli: null } as const;
      for (const [name, creator] of Object.entries(keys)) {
        await db.execute(sql`insert into api_keys (name, prefix, key_hash, created_by) values (${name}, 'mk_x', ${`hash-${name}`}, ${creator})`);
      }

      await migrate(db, { migrationsFolder: path.resolve("drizzle") });
      const owners = rowsOf<{ name: string; institute_id: string | null }>(await db.execute(sql`select name, institute_id from api_keys`));
      expect(Object.fromEntries(owners.map((row) => [row.name, row.institute_id]))).toEqual({ sole: a, both: null, teacher: null, cli: null });
    } finally {
      await database.close();
      fs.rmSync(before, { recursive: true, force: true });
    }
  });
});
