/**
 * "Known device" cookies: a browser that signed in to an account before carries a signed note of it, and
 * its attempts at that account are counted on their own (server/auth/sign-in-throttle.ts), so that
 * somebody guessing the account's password elsewhere cannot lock its owner out of their own devices.
 * This is OWASP's "device cookie" scheme. The cookie holds up to MAX_ENTRIES accounts (a shared
 * classroom computer), each `<user id>.<device id>.<HMAC-SHA256 of both with AUTH_SECRET>`: it cannot
 * be made up, and it names no email. It opens nothing by itself: it only changes which count a password
 * attempt is judged by.
 */
import crypto from "node:crypto";
import { serverSecret } from "../auth/secret";

export const KNOWN_DEVICE_COOKIE = "markbook.known-device";
const MAX_ENTRIES = 5;
/** 400 days, the longest a browser keeps a cookie; every sign-in renews it. */
const MAX_AGE_SECONDS = 400 * 24 * 60 * 60;
const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const deviceIdShape = /^[A-Za-z0-9_-]{16,32}$/;

const mac = (userId: string, deviceId: string) =>
  crypto.createHmac("sha256", serverSecret("AUTH_SECRET")).update(`known-device:${userId}:${deviceId}`, "utf8").digest("base64url");

interface Entry {
  userId: string;
  deviceId: string;
}

/** The cookie's genuine entries; anything forged, damaged or foreign is left out. */
function entriesOf(value: string | null | undefined): Entry[] {
  if (!value) return [];
  const entries: Entry[] = [];
  for (const part of value.slice(0, 4096).split(":")) {
    const [userId, deviceId, signature, extra] = part.split(".");
    if (extra !== undefined || !userId || !deviceId || !signature || !uuidShape.test(userId) || !deviceIdShape.test(deviceId)) continue;
    const expected = Buffer.from(mac(userId, deviceId));
    const given = Buffer.from(signature);
    if (given.length === expected.length && crypto.timingSafeEqual(given, expected)) entries.push({ userId, deviceId });
  }
  return entries;
}

/** The id of this browser as a known device of the user, or null. */
export function knownDeviceOf(cookieValue: string | null | undefined, userId: string): string | null {
  return entriesOf(cookieValue).find((entry) => entry.userId === userId.toLowerCase())?.deviceId ?? null;
}

/** The cookie's value after the user signed in on this browser: their entry first (kept, or new). */
export function rememberDevice(cookieValue: string | null | undefined, userId: string): string {
  const id = userId.toLowerCase();
  const entries = entriesOf(cookieValue);
  const deviceId = entries.find((entry) => entry.userId === id)?.deviceId ?? crypto.randomBytes(16).toString("base64url");
  return [{ userId: id, deviceId }, ...entries.filter((entry) => entry.userId !== id)]
    .slice(0, MAX_ENTRIES)
    .map((entry) => `${entry.userId}.${entry.deviceId}.${mac(entry.userId, entry.deviceId)}`)
    .join(":");
}

/** The Set-Cookie header of a known-device cookie: only the server reads it (HttpOnly), sent to this site only. */
export function knownDeviceSetCookie(value: string, secure: boolean): string {
  return `${secure ? "__Secure-" : ""}${KNOWN_DEVICE_COOKIE}=${value}; Path=/; Max-Age=${MAX_AGE_SECONDS}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}

/** The known-device cookie's value in a Cookie header, or null. */
export function knownDeviceCookieIn(cookieHeader: string | null | undefined, secure: boolean): string | null {
  const name = `${secure ? "__Secure-" : ""}${KNOWN_DEVICE_COOKIE}`;
  for (const pair of (cookieHeader ?? "").split(";")) {
    const at = pair.indexOf("=");
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return null;
}
