import crypto from "node:crypto";
import { z } from "zod";
import { text } from "../../lib/rules/input-rules";
import type { Db } from "../db/client";
import { asService } from "../db/rls";
import { findUserBySignInName } from "../identity/users";
import { knownDeviceOf, rememberDevice } from "./known-device";
import { hashPassword, verifyPassword } from "../auth/passwords";
import { type ThrottleKey, accountThrottle, addressThrottle, blockedUntil, countFailure, deviceThrottle, forgetFailures, throttledError } from "../auth/sign-in-throttle";

const credentialsInput = z.object({
  email: text(320).trim().min(1),
  password: text(1024).min(1),
});

export interface SignedInUser {
  id: string;
  email: string;
  name: string;
}

/** Where a sign-in attempt comes from, as far as the server knows. */
export interface SignInContext {
  /** The client's address (server/auth/client-address.ts); absent when unknown. */
  clientAddress?: string | null;
  /** The value of the browser's known-device cookie (server/sign-in/known-device.ts), if it sent one. */
  knownDevices?: string | null;
  /** The clock (ms since the epoch); tests move it by hand. */
  now?: number;
}

export interface SignInResult {
  user: SignedInUser;
  /** The known-device cookie's new value: this browser is now a known device of the user. */
  knownDevices: string;
}

// A hash of a random password, checked when the email is unknown or has no password, so that every
// failed sign-in costs the same scrypt work and the timing does not tell which emails exist.
let decoyHash: Promise<string> | undefined;
const decoy = () => (decoyHash ??= hashPassword(crypto.randomBytes(32).toString("base64url")));

/**
 * The user whose email (or username) and password these are, or null. Unknown name and wrong password are the same
 * null: sign-in never reveals which accounts exist. A credential check is a named asService exception
 * (the caller is nobody yet, so row-level security has no user to apply).
 *
 * Guessing is slowed down (server/auth/sign-in-throttle.ts): an attempt is refused before any password
 * is checked while the email tried or the client's address waits after its failures, with a 429
 * AppError (`retryAfterSeconds`) saying when to try again, the same for every email. A browser that
 * signed in to the account before (its known-device cookie) is judged by its own count instead, so its
 * owner's right password keeps working while somebody else guesses. A success forgets the account's
 * failures.
 */
export async function signInWithPassword(db: Db, credentials: unknown, context: SignInContext = {}): Promise<SignInResult | null> {
  const parsed = credentialsInput.safeParse(credentials);
  if (!parsed.success) return null;
  const now = context.now ?? Date.now();
  const { email, password } = parsed.data;
  const user = await asService(db, (tx) => findUserBySignInName(tx, email));
  // One count per account, whether it is named by its email or its username.
  const account = accountThrottle(user?.email ?? email);
  const deviceId = user ? knownDeviceOf(context.knownDevices, user.id) : null;
  const address = context.clientAddress ? [addressThrottle(context.clientAddress)] : [];
  // What the attempt is judged by: a known device by its own count; any other by the account and the address.
  const judgedBy: ThrottleKey[] = user && deviceId ? [deviceThrottle(user.id, deviceId)] : [account, ...address];
  const until = await blockedUntil(db, judgedBy, now);
  if (until !== null) throw throttledError(until, now);

  const stored = user?.password_hash ?? (await decoy());
  const matches = await verifyPassword(password, stored);
  // A deactivated user is refused like a wrong password (after the same work), so sign-in still reveals nothing.
  if (!user?.password_hash || !matches || user.deactivated_at) {
    // A known device's failures still count toward its address.
    await countFailure(db, deviceId ? [...judgedBy, ...address] : judgedBy, now);
    return null;
  }
  await forgetFailures(db, [account, ...(deviceId ? judgedBy : [])]);
  return { user: { id: user.id, email: user.email, name: user.display_name }, knownDevices: rememberDevice(context.knownDevices, user.id) };
}

/** signInWithPassword's user, or null (a 429 AppError when the attempt comes too soon). */
export async function verifyCredentials(db: Db, credentials: unknown, context: SignInContext = {}): Promise<SignedInUser | null> {
  return (await signInWithPassword(db, credentials, context))?.user ?? null;
}
