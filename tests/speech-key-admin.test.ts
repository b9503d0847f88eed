import { beforeAll, expect, it } from "vitest";
import { asService } from "../server/db/rls";
import { verifyApiKey } from "../server/identity/api-keys";
import { verifyDictationKey } from "../server/speech/dictation-keys";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";

describeOnEachDatabase("speech keys through tRPC (settings of the web app)", (database) => {
  let school: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  beforeAll(async () => {
    school = await createSchool(database().db, "Speech keys");
  });

  it("lets a school admin create a key (shown once), list it without the key, and revoke it", async () => {
    const created = await as(school.admin).speech.apiKeys.create({ name: "Language lab" });
    expect(created.key).toMatch(/^mk_/);
    expect(await asService(database().db, (tx) => verifyApiKey(tx, created.key))).toMatchObject({ id: created.id });

    const listed = await as(school.admin).speech.apiKeys.list();
    expect(listed.find((key) => key.id === created.id)).toMatchObject({ name: "Language lab", prefix: created.prefix, revoked_at: null });
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

  it("gives any signed-in user a short-lived dictation key for themselves", async () => {
    const { key, expires_at } = await as(school.teacher).speech.dictationKey();
    expect(key).toMatch(/^mkd_/);
    expect(expires_at.getTime()).toBeGreaterThan(Date.now());
    expect(expires_at.getTime()).toBeLessThanOrEqual(Date.now() + 3600_000);
    expect(await verifyDictationKey(key)).toEqual({ userId: school.teacher.id });
  });
});
