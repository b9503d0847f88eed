import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueDictationKey, verifyDictationKey } from "../server/speech/dictation-keys";
import { type RunningSpeechServer, startSpeechServer, testSpeechConfig } from "./support/speech-server";

const userId = "4f0c8f8e-2a44-4a53-9c39-1c3f2e0a9b10";

describe("dictation keys: short-lived speech keys for the signed-in UI", () => {
  let server: RunningSpeechServer;
  beforeAll(async () => {
    server = await startSpeechServer(testSpeechConfig());
  });
  afterAll(async () => {
    await server?.close();
  });

  it("verifies for their user until they expire", async () => {
    const now = new Date("2026-11-23T10:00:00Z");
    const { key, expires_at } = await issueDictationKey({ userId, ttlSeconds: 600 }, now);
    expect(key).toMatch(/^mkd_/);
    expect(expires_at.toISOString()).toBe("2026-11-23T10:10:00.000Z");
    expect(await verifyDictationKey(key, new Date("2026-11-23T10:09:59Z"))).toEqual({ userId });
    expect(await verifyDictationKey(key, new Date("2026-11-23T10:10:01Z"))).toBeNull();
  });

  it("refuses tampered keys, other tokens and out-of-range lifetimes", async () => {
    const { key } = await issueDictationKey({ userId });
    const [header, payload, signature] = key.slice(4).split(".");
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), sub: "someone-else" })).toString("base64url");
    expect(await verifyDictationKey(`mkd_${header}.${forged}.${signature}`)).toBeNull();
    expect(await verifyDictationKey(`mkd_${header}.${payload}.`)).toBeNull();
    expect(await verifyDictationKey(key.slice(4))).toBeNull();
    expect(await verifyDictationKey("mkd_not-a-jwt")).toBeNull();
    await expect(issueDictationKey({ userId, ttlSeconds: 7200 })).rejects.toThrow();
  });

  it("open the /v1 API (the WebSocket handshake runs the same check); an expired one is 401 invalid_api_key", async () => {
    const { key } = await issueDictationKey({ userId });
    expect((await fetch(`${server.baseURL}/models`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    const expired = (await issueDictationKey({ userId, ttlSeconds: 30 }, new Date(Date.now() - 60_000))).key;
    const refused = await fetch(`${server.baseURL}/models`, { headers: { authorization: `Bearer ${expired}` } });
    expect(refused.status).toBe(401);
    expect((await refused.json()).error).toMatchObject({ type: "authentication_error", code: "invalid_api_key" });
  });
});
