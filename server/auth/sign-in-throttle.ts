/**
 * Password guessing is slowed down in the database, so every app node counts against the same budget
 * (table sign_in_failures, read and written only by the app.*sign_in_failure* functions in
 * server/db/sql/functions/). Failed sign-ins are counted per account (the
 * normalised email tried, whether or not an account has it, so the answers say nothing about which
 * accounts exist), per client address, and per known device of an account (server/sign-in/known-device.ts).
 * Each key gets a few free failures, then waits 2^(n - free) seconds after its n-th failure (at most
 * five minutes), and is locked for 15 minutes from its 20th failure on. A success forgets the account's
 * count; a count is forgotten anyway a while after its last failure. The clock is the caller's (`now`),
 * so tests move it by hand.
 */
import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import { type Db, rowsOf } from "../db/client";
import { textArray } from "../db/text-array";
import { AppError } from "../errors";
import { logger } from "../logger";
import { serverSecret } from "./secret";

export interface ThrottleRule {
  /** Failures with no wait at all. */
  freeFailures: number;
  /** The longest wait of the growing delay. */
  maxDelaySeconds: number;
  /** From this many failures on, every failure locks the key for lockSeconds. */
  lockAfter: number;
  lockSeconds: number;
  /** The count starts again this long after the key's last failure. */
  forgetAfterSeconds: number;
}

const MINUTE = 60;
const HOUR = 60 * MINUTE;

export const throttleRules = {
  /** An email tried: 5 free failures, then 1 s, 2 s, 4 s … at most 5 min, locked 15 min from the 20th. */
  account: { freeFailures: 5, maxDelaySeconds: 5 * MINUTE, lockAfter: 20, lockSeconds: 15 * MINUTE, forgetAfterSeconds: 24 * HOUR },
  /** A device the account signed in from before: its own count, the same rule. */
  device: { freeFailures: 5, maxDelaySeconds: 5 * MINUTE, lockAfter: 20, lockSeconds: 15 * MINUTE, forgetAfterSeconds: 24 * HOUR },
  /**
   * A client address: a school's pupils often share one public address, so it takes ten times the
   * failures of an account before it waits; it stops one machine from trying a password on every account.
   */
  address: { freeFailures: 50, maxDelaySeconds: 5 * MINUTE, lockAfter: 200, lockSeconds: 15 * MINUTE, forgetAfterSeconds: HOUR },
} as const satisfies Record<string, ThrottleRule>;

export interface ThrottleKey {
  key: string;
  rule: ThrottleRule;
}

/** The email as a sign-in compares it: one spelling for one account. */
const normaliseSignInName = (name: string) => name.normalize("NFKC").trim().toLowerCase();

// Keys are HMACs with the server's secret: the table holds neither the emails tried (some are passwords
// typed into the wrong field) nor the addresses, and a digest cannot be reversed by trying names.
const digest = (kind: string, value: string) =>
  crypto.createHmac("sha256", serverSecret("AUTH_SECRET")).update(`${kind}:${value}`, "utf8").digest("base64url");

export const accountThrottle = (email: string): ThrottleKey => ({ key: `account:${digest("account", normaliseSignInName(email))}`, rule: throttleRules.account });
export const addressThrottle = (address: string): ThrottleKey => ({ key: `address:${digest("address", address)}`, rule: throttleRules.address });
export const deviceThrottle = (userId: string, deviceId: string): ThrottleKey => ({ key: `device:${userId}:${deviceId}`, rule: throttleRules.device });

const iso = (ms: number) => new Date(ms).toISOString();
const interval = (seconds: number) => `${seconds} seconds`;

/** Until when (ms) the next attempt with any of these keys is refused, or null when none is. */
export async function blockedUntil(db: Db, keys: readonly ThrottleKey[], now: number): Promise<number | null> {
  if (keys.length === 0) return null;
  const names = keys.map((key) => key.key);
  const [row] = rowsOf<{ until: number | string | null }>(
    await db.execute(
      sql`select (extract(epoch from app.sign_in_blocked_until(${textArray(names)}, ${iso(now)}::timestamptz)) * 1000)::float8 as until`,
    ),
  );
  return row?.until === null || row?.until === undefined ? null : Number(row.until);
}

/** Counts one failure against each key (one statement). */
export async function countFailure(db: Db, keys: readonly ThrottleKey[], now: number): Promise<void> {
  if (keys.length === 0) return;
  const calls = keys.map(
    ({ key, rule }) =>
      sql`select failures from app.count_sign_in_failure(${key}, ${iso(now)}::timestamptz, ${interval(rule.forgetAfterSeconds)}::interval,
        ${rule.freeFailures}::integer, ${interval(rule.maxDelaySeconds)}::interval, ${rule.lockAfter}::integer, ${interval(rule.lockSeconds)}::interval)`,
  );
  await db.execute(sql.join(calls, sql` union all `));
  forgetNowAndThen(db, now);
}

/** Forgets the failures of these keys (a successful sign-in). */
export async function forgetFailures(db: Db, keys: readonly ThrottleKey[]): Promise<void> {
  if (keys.length === 0) return;
  await db.execute(sql`select app.forget_sign_in_failures(${textArray(keys.map((key) => key.key))})`);
}

/** Deletes the counts that are forgotten and refuse nothing; answers how many. */
async function forgetOldFailures(db: Db, now: number): Promise<number> {
  const [row] = rowsOf<{ forgotten: number }>(await db.execute(sql`select app.forget_old_sign_in_failures(${iso(now)}::timestamptz) as forgotten`));
  return Number(row?.forgotten ?? 0);
}

const FORGET_EVERY_MS = 10 * MINUTE * 1000;
let lastForgotten = 0;
function forgetNowAndThen(db: Db, now: number) {
  if (Math.abs(now - lastForgotten) < FORGET_EVERY_MS) return;
  lastForgotten = now;
  forgetOldFailures(db, now).catch((error: unknown) => logger.error("sign-in throttle: forgetting old failures failed", error));
}

export interface ThrottledError extends AppError {
  retryAfterSeconds: number;
}

/**
 * The refusal of an attempt made too soon: the same sentence whether the account exists or not, saying
 * when to try again (in how long, and the time in UTC).
 */
export function throttledError(until: number, now: number): ThrottledError {
  const seconds = Math.max(1, Math.ceil((until - now) / 1000));
  const wait = seconds < 60 ? `${seconds} second${seconds === 1 ? "" : "s"}` : `${Math.ceil(seconds / 60)} minute${Math.ceil(seconds / 60) === 1 ? "" : "s"}`;
  // The minute shown is never before the time itself: "after 18:43" for 18:42:30.
  const at = new Date(Math.ceil((now + seconds * 1000) / 60_000) * 60_000).toISOString().slice(11, 16);
  return Object.assign(new AppError("rate_limited", `Too many sign-in attempts: try again in ${wait} (after ${at} UTC).`), {
    retryAfterSeconds: seconds,
  });
}

export const isThrottledError = (error: unknown): error is ThrottledError =>
  error instanceof AppError && error.code === "rate_limited" && typeof (error as Partial<ThrottledError>).retryAfterSeconds === "number";
