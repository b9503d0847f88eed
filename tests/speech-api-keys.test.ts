import { afterAll, beforeAll, expect, it } from "vitest";
import { asService } from "../server/db/rls";
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
