import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { users } from "../server/db/schema";
import { asService } from "../server/db/rls";
import { setUserActive } from "../server/identity/users";
import { issueDictationKey, verifyDictationKey } from "../server/speech/dictation-keys";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { type RunningSpeechServer, startSpeechServer, testSpeechConfig } from "./support/speech-server";

describeOnEachDatabase("dictation keys: short-lived speech keys for the signed-in UI", (database) => {
  let server: RunningSpeechServer;
  let school: School;
  let userId: string;
  beforeAll(async () => {
    server = await startSpeechServer(testSpeechConfig());
    school = await createSchool(database().db, "Dictation");
    userId = school.teacher.id;
  });
  afterAll(async () => {
    await server?.close();
  });

  const verify = (key: string, now?: Date) => asService(database().db, (tx) => verifyDictationKey(tx, key, now));
  const listModels = (key: string) => fetch(`${server.baseURL}/models`, { headers: { authorization: `Bearer ${key}` } });

  it("verifies for their user until they expire", async () => {
    const now = new Date("2026-11-23T10:00:00Z");
    const { key, expires_at } = await issueDictationKey({ userId, ttlSeconds: 600 }, now);
    expect(key).toMatch(/^mkd_/);
    expect(expires_at.toISOString()).toBe("2026-11-23T10:10:00.000Z");
    expect(await verify(key, new Date("2026-11-23T10:09:59Z"))).toEqual({ userId });
    expect(await verify(key, new Date("2026-11-23T10:10:01Z"))).toBeNull();
  });

  it("refuses tampered keys, other tokens and out-of-range lifetimes", async () => {
    const { key } = await issueDictationKey({ userId });
    const [header, payload, signature] = key.slice(4).split(".");
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), sub: school.admin.id })).toString("base64url");
    expect(await verify(`mkd_${header}.${forged}.${signature}`)).toBeNull();
    expect(await verify(`mkd_${header}.${payload}.`)).toBeNull();
    expect(await verify(key.slice(4))).toBeNull();
    expect(await verify("mkd_not-a-jwt")).toBeNull();
    await expect(issueDictationKey({ userId, ttlSeconds: 7200 })).rejects.toThrow();
  });

  it("open the /v1 API (the WebSocket handshake runs the same check); an expired one is 401 invalid_api_key", async () => {
    const { key } = await issueDictationKey({ userId });
    expect((await listModels(key)).status).toBe(200);
    const expired = (await issueDictationKey({ userId, ttlSeconds: 30 }, new Date(Date.now() - 60_000))).key;
    const refused = await listModels(expired);
    expect(refused.status).toBe(401);
    expect((await refused.json()).error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
  });

  it("stop working at once when their user is deactivated, and work again when the user is reactivated", async () => {
    const { key } = await createCaller({ db: database().db, user: { id: school.otherTeacher.id } }).speech.dictationKey();
    expect((await listModels(key)).status).toBe(200);

    await asService(database().db, (tx) => setUserActive(tx, { userId: school.otherTeacher.id, active: false }));
    expect(await verify(key)).toBeNull();
    const refused = await listModels(key);
    expect(refused.status).toBe(401);
    expect((await refused.json()).error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });

    await asService(database().db, (tx) => setUserActive(tx, { userId: school.otherTeacher.id, active: true }));
    expect((await listModels(key)).status).toBe(200);
  });

  it("stop working once their user's password is reset, and keys issued after the reset work", async () => {
    const admin = createCaller({ db: database().db, user: { id: school.admin.id } });
    const before = await issueDictationKey({ userId: school.head.id });
    expect(await verify(before.key)).toEqual({ userId: school.head.id });
    await admin.people.resetPassword({ user_id: school.head.id });
    expect(await verify(before.key)).toBeNull();
    expect((await listModels(before.key)).status).toBe(401);
    // Issued in the same second as the reset, after it.
    const after = await issueDictationKey({ userId: school.head.id });
    expect(await verify(after.key)).toEqual({ userId: school.head.id });
  });

  it("stop working at once when their user is deleted", async () => {
    const { key } = await createCaller({ db: database().db, user: { id: school.otherStudent.id } }).speech.dictationKey();
    expect((await listModels(key)).status).toBe(200);
    await asService(database().db, (tx) => tx.delete(users).where(eq(users.id, school.otherStudent.id)));
    expect(await verify(key)).toBeNull();
    expect((await listModels(key)).status).toBe(401);
  });
});
