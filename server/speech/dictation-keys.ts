/**
 * Short-lived speech keys for the signed-in UI's dictation: the browser must hold a key to open
 * `/v1/websocket` (`?api_key=`), and a real API key must never reach it. A dictation key is
 * "mkd_" + an HS256 JWT (AUTH_SECRET) for one user, audience markbook-speech, valid minutes, not stored:
 * nothing to revoke: it expires, and it stops working at once when its user is deleted or deactivated,
 * or their password changes after it was issued (verifyDictationKey reads the user at every use). The tRPC procedure that hands one to a signed-in user calls
 * `issueDictationKey` with the session's user id.
 */
import { and, eq, isNull, lte, or } from "drizzle-orm";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { z } from "zod";
import { serverSecret } from "../auth/secret";
import { ISSUED_AT_CLAIM } from "../auth/tokens";
import type { Tx } from "../db/client";
import { users } from "../db/schema";

export const DICTATION_KEY_PREFIX = "mkd_";
const AUDIENCE = "markbook-speech";
const ISSUER = "markbook";
const DICTATION_KEY_DEFAULT_TTL_SECONDS = 600;
const MAX_TTL_SECONDS = 3600;

const secretKey = () => new TextEncoder().encode(serverSecret("AUTH_SECRET"));

export const issueDictationKeyInput = z.object({
  userId: z.uuid(),
  ttlSeconds: z.number().int().min(30).max(MAX_TTL_SECONDS).default(DICTATION_KEY_DEFAULT_TTL_SECONDS),
});

export const dictationKeyOutput = z.object({ key: z.string(), expires_at: z.date() });

export async function issueDictationKey(input: z.input<typeof issueDictationKeyInput>, now = new Date()) {
  const { userId, ttlSeconds } = issueDictationKeyInput.parse(input);
  const issuedAt = Math.floor(now.getTime() / 1000);
  // The time of issue in milliseconds too: a password changed after it ends the key (iat has whole seconds).
  const jwt = await new SignJWT({ scope: "speech", [ISSUED_AT_CLAIM]: now.getTime() })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(userId)
    .setAudience(AUDIENCE)
    .setIssuer(ISSUER)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttlSeconds)
    .sign(secretKey());
  return dictationKeyOutput.parse({ key: DICTATION_KEY_PREFIX + jwt, expires_at: new Date((issuedAt + ttlSeconds) * 1000) });
}

/**
 * The user a live dictation key was issued to, or null: expired, tampered, another audience…, or its
 * user was deleted or deactivated since, or their password changed after it was issued (an admin's reset
 * or their own change). The user is read at every use (no cache): a key stops working the moment its
 * user does, not when it expires. Runs as the service (the caller is a key, not a user).
 */
export async function verifyDictationKey(tx: Tx, key: string, now = new Date()): Promise<{ userId: string } | null> {
  const subject = await dictationKeySubject(key, now);
  if (!subject) return null;
  const { userId, issuedAtMs } = subject;
  const [user] = await tx
    .select({ id: users.id })
    .from(users)
    .where(
      and(
        eq(users.id, userId),
        isNull(users.deactivated_at),
        or(isNull(users.password_changed_at), lte(users.password_changed_at, new Date(issuedAtMs))),
      ),
    );
  return user ? { userId } : null;
}

/** The user named by a correctly signed, unexpired dictation key and when it was issued (ms), or null. */
async function dictationKeySubject(key: string, now: Date): Promise<{ userId: string; issuedAtMs: number } | null> {
  if (!key.startsWith(DICTATION_KEY_PREFIX) || key.length > 2000) return null;
  try {
    const { payload } = await jwtVerify(key.slice(DICTATION_KEY_PREFIX.length), secretKey(), {
      algorithms: ["HS256"],
      audience: AUDIENCE,
      issuer: ISSUER,
      requiredClaims: ["exp", "sub"],
      currentDate: now,
    });
    if (payload.scope !== "speech" || typeof payload.sub !== "string" || !z.uuid().safeParse(payload.sub).success) return null;
    const claimed = payload[ISSUED_AT_CLAIM];
    // Without a usable time of issue, the key counts as issued before any password change.
    const issuedAtMs = typeof claimed === "number" && Math.abs(claimed) <= 8.64e15 ? claimed : typeof payload.iat === "number" ? payload.iat * 1000 : 0;
    return { userId: payload.sub, issuedAtMs: Number.isFinite(issuedAtMs) && Math.abs(issuedAtMs) <= 8.64e15 ? issuedAtMs : 0 };
  } catch (error) {
    if (error instanceof joseErrors.JOSEError) return null;
    throw error;
  }
}
