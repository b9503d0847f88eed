import { eq } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import type { Tx } from "../server/db/client";
import { apiKeys, instituteMemberships } from "../server/db/schema";
import { asService, asUser } from "../server/db/rls";
import { createApiKey, listApiKeys, revokeApiKey, verifyApiKey } from "../server/identity/api-keys";
import { createUser } from "../server/identity/users";
import { verifyDictationKey } from "../server/speech/dictation-keys";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";

const makeSchoolAdmin = (tx: Tx, userId: string, instituteId: string) =>
  tx.insert(instituteMemberships).values({ user_id: userId, institute_id: instituteId, role: "school_admin" });

describeOnEachDatabase("speech keys through tRPC (settings of the web app)", (database) => {
  let school: School;
  let otherSchool: School;
  /** A second school admin of `school`, and an admin of both schools. */
  let secondAdmin: { id: string };
  let adminOfBoth: { id: string };
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const withService = <T>(fn: Parameters<typeof asService<T>>[1]) => asService(database().db, fn);

  beforeAll(async () => {
    school = await createSchool(database().db, "Speech keys");
    otherSchool = await createSchool(database().db, "Other speech keys");
    const tag = crypto.randomUUID().slice(0, 8);
    [secondAdmin, adminOfBoth] = await withService(async (tx) => {
      const second = await createUser(tx, { email: `second.${tag}@example.org`, fullName: "Second Admin", instituteId: school.institute.id, role: "school_admin" });
      const both = await createUser(tx, { email: `both.${tag}@example.org`, fullName: "Both Admin", instituteId: school.institute.id, role: "school_admin" });
      await makeSchoolAdmin(tx, both.id, otherSchool.institute.id);
      return [second, both];
    });
  });

  it("lets a school admin create a key (shown once), list it without the key, and revoke it", async () => {
    const created = await as(school.admin).speech.apiKeys.create({ name: "Language lab" });
    expect(created.key).toMatch(/^mk_/);
    expect(await asService(database().db, (tx) => verifyApiKey(tx, created.key))).toMatchObject({ id: created.id });

    expect(created.institute_id).toBe(school.institute.id);

    const listed = await as(school.admin).speech.apiKeys.list();
    expect(listed.find((key) => key.id === created.id)).toMatchObject({
      name: "Language lab",
      prefix: created.prefix,
      institute_id: school.institute.id,
      created_by_name: school.admin.display_name,
      revoked_at: null,
    });
    expect(JSON.stringify(listed)).not.toContain(created.key);

    const revoked = await as(school.admin).speech.apiKeys.revoke({ id: created.id });
    expect(revoked.revoked_at).toBeInstanceOf(Date);
    expect(await asService(database().db, (tx) => verifyApiKey(tx, created.key))).toBeNull();
  });

  it("refuses teachers, heads and students with FORBIDDEN, and creates nothing", async () => {
    for (const user of [school.teacher, school.head, school.student]) {
      await expect(as(user).speech.apiKeys.create({ name: "Sneaky" })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(as(user).speech.apiKeys.list()).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    const names = (await as(school.admin).speech.apiKeys.list()).map((key) => key.name);
    expect(names).not.toContain("Sneaky");
  });

  it("answers a key id that does not exist with NOT_FOUND", async () => {
    await expect(as(school.admin).speech.apiKeys.revoke({ id: crypto.randomUUID() })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("shows an admin only their own school's keys; another school's key is NOT_FOUND to revoke and stays live", async () => {
    const ours = await as(school.admin).speech.apiKeys.create({ name: "Ours" });
    const theirs = await as(otherSchool.admin).speech.apiKeys.create({ name: "Theirs" });
    expect(theirs.institute_id).toBe(otherSchool.institute.id);

    const seenByUs = await as(school.admin).speech.apiKeys.list();
    expect(seenByUs.map((key) => key.id)).toContain(ours.id);
    expect(seenByUs.map((key) => key.id)).not.toContain(theirs.id);
    expect(seenByUs.every((key) => key.institute_id === school.institute.id)).toBe(true);
    const seenByThem = await as(otherSchool.admin).speech.apiKeys.list();
    expect(seenByThem.map((key) => key.id)).toEqual([theirs.id]);

    await expect(as(school.admin).speech.apiKeys.revoke({ id: theirs.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await withService((tx) => verifyApiKey(tx, theirs.key))).toMatchObject({ id: theirs.id });
    // Naming the other school is refused too, not answered with its keys.
    await expect(as(school.admin).speech.apiKeys.list({ institute_id: otherSchool.institute.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("lets an admin revoke a key another admin of the same school made", async () => {
    const made = await as(school.admin).speech.apiKeys.create({ name: "Made by the first admin" });
    expect((await as(secondAdmin).speech.apiKeys.list()).map((key) => key.id)).toContain(made.id);
    const revoked = await as(secondAdmin).speech.apiKeys.revoke({ id: made.id });
    expect(revoked.revoked_at).toBeInstanceOf(Date);
    expect(await withService((tx) => verifyApiKey(tx, made.key))).toBeNull();
  });

  it("keeps installation (command line) keys away from every admin; the command line lists and revokes them", async () => {
    const installation = await withService((tx) => createApiKey(tx, { name: "Installation key" }));
    expect(installation.institute_id).toBeNull();
    for (const admin of [school.admin, otherSchool.admin, adminOfBoth]) {
      expect((await as(admin).speech.apiKeys.list()).map((key) => key.id)).not.toContain(installation.id);
      await expect(as(admin).speech.apiKeys.revoke({ id: installation.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    }
    expect(await withService((tx) => verifyApiKey(tx, installation.key))).toMatchObject({ id: installation.id });
    expect((await withService((tx) => listApiKeys(tx))).find((key) => key.id === installation.id)).toMatchObject({ institute_id: null });
    expect((await withService((tx) => revokeApiKey(tx, { id: installation.id }))).revoked_at).toBeInstanceOf(Date);
  });

  it("enforces the institute in the database itself (row-level security), not only in the procedures", async () => {
    const theirs = await as(otherSchool.admin).speech.apiKeys.create({ name: "Guarded by policy" });
    const installation = await withService((tx) => createApiKey(tx, { name: "Guarded installation key" }));
    await asUser(database().db, school.admin.id, async (tx) => {
      const seen = await tx.select({ id: apiKeys.id }).from(apiKeys);
      expect(seen.map((row) => row.id)).not.toContain(theirs.id);
      expect(seen.map((row) => row.id)).not.toContain(installation.id);
      const updated = await tx.update(apiKeys).set({ revoked_at: new Date() }).where(eq(apiKeys.id, theirs.id)).returning({ id: apiKeys.id });
      expect(updated).toEqual([]);
    });
    // Creating a key for another school, or an installation key, breaks the insert policy.
    for (const instituteId of [otherSchool.institute.id, null]) {
      await expect(
        asUser(database().db, school.admin.id, (tx) =>
          tx.insert(apiKeys).values({ name: "Smuggled", prefix: "mk_smug", key_hash: crypto.randomUUID(), created_by: school.admin.id, institute_id: instituteId }),
        ),
      ).rejects.toThrow();
    }
    expect((await withService((tx) => listApiKeys(tx))).map((key) => key.name)).not.toContain("Smuggled");
    expect(await withService((tx) => verifyApiKey(tx, theirs.key))).toMatchObject({ id: theirs.id });
  });

  it("asks an admin of several schools which one a new key is for, and lists each school's keys apart", async () => {
    await expect(as(adminOfBoth).speech.apiKeys.create({ name: "Which school?" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: expect.stringContaining("say which one the key is for"),
    });
    const forOther = await as(adminOfBoth).speech.apiKeys.create({ name: "For the other school", institute_id: otherSchool.institute.id });
    expect(forOther.institute_id).toBe(otherSchool.institute.id);
    expect((await as(otherSchool.admin).speech.apiKeys.list()).map((key) => key.id)).toContain(forOther.id);
    expect((await as(school.admin).speech.apiKeys.list()).map((key) => key.id)).not.toContain(forOther.id);
    const both = await as(adminOfBoth).speech.apiKeys.list();
    expect(new Set(both.map((key) => key.institute_id))).toEqual(new Set([school.institute.id, otherSchool.institute.id]));
    const onlyOther = await as(adminOfBoth).speech.apiKeys.list({ institute_id: otherSchool.institute.id });
    expect(onlyOther.length).toBeGreaterThan(0);
    expect(onlyOther.every((key) => key.institute_id === otherSchool.institute.id)).toBe(true);
    // A school they do not administer: 403, nothing created.
    await expect(as(otherSchool.admin).speech.apiKeys.create({ name: "Not mine", institute_id: school.institute.id })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
    expect((await withService((tx) => listApiKeys(tx))).map((key) => key.name)).not.toContain("Not mine");
  });

  it("gives any signed-in user a short-lived dictation key for themselves", async () => {
    const { key, expires_at } = await as(school.teacher).speech.dictationKey();
    expect(key).toMatch(/^mkd_/);
    expect(expires_at.getTime()).toBeGreaterThan(Date.now());
    expect(expires_at.getTime()).toBeLessThanOrEqual(Date.now() + 3600_000);
    expect(await withService((tx) => verifyDictationKey(tx, key))).toEqual({ userId: school.teacher.id });
  });
});
