import { sql } from "drizzle-orm";
import { type Db, rowsOf } from "../db/client";
import { AppError } from "../errors";
import type { AuthenticatedUser } from "./authenticated-user";
import { bearerToken, verifyUserToken } from "./tokens";


/** What a session holding a temporary password is told by every route but the one that replaces it. */
export const CHOOSE_PASSWORD_FIRST = "Choose your own password first: you signed in with a temporary one (go to /choose-password)";

/** Why a verified token is refused, by app.user_token_state's answer. */
const refusals = {
  unknown_user: "Token user no longer exists",
  deactivated: "This user account is deactivated",
  revoked: "Token was revoked",
  password_changed: "This token was issued before the account's password was changed: create a new token",
} as const;

type TokenState = keyof typeof refusals | "live" | "must_choose_password";

/**
 * Verifies a user token and that its user still exists and is not deactivated, that their password has
 * not changed since it was issued (an admin's reset or their own change ends every token issued before),
 * and, for a personal access token, that it was not revoked. Every failure is the same 401 family, with a
 * message that says which. A token issued after a reset, while its user still holds the temporary
 * password, is held at "choose your password" as a session is.
 *
 * The check is one statement (app.user_token_state, server/db/sql/functions/user_token_state.sql) rather than an RLS transaction:
 * it runs on every request, and a transaction is four round trips (measured 390 µs of Node CPU and
 * 240 µs of PostgreSQL CPU per request against about 50 and 35). The function answers only whether the
 * token's own user and token row are live.
 */
async function authenticateToken(db: Db, token: string): Promise<AuthenticatedUser> {
  const claims = await verifyUserToken(token);
  const issuedAt = claims.issuedAtMs === undefined ? null : new Date(claims.issuedAtMs).toISOString();
  const [row] = rowsOf<{ state: TokenState }>(
    await db.execute(sql`select app.user_token_state(${claims.userId}::uuid, ${claims.tokenId ?? null}::uuid, ${issuedAt}::timestamptz) as state`),
  );
  const state = row?.state ?? "unknown_user";
  if (state === "live") return { id: claims.userId };
  if (state === "must_choose_password") return { id: claims.userId, mustChoosePassword: true };
  throw new AppError("unauthenticated", refusals[state]);
}

export const MISSING_BEARER_TOKEN = "Missing bearer token (Authorization: Bearer <token>)";

export async function authenticateBearer(db: Db, authorization: string | null): Promise<AuthenticatedUser> {
  const token = bearerToken(authorization);
  if (!token) throw new AppError("unauthenticated", MISSING_BEARER_TOKEN);
  return authenticateToken(db, token);
}

/**
 * Who is calling, for REST and tRPC alike: a Bearer token (external tools, tests) or else the next-auth
 * session cookie (the web app). A request that sends an Authorization header is judged by it alone: a bad
 * token is refused (401) even when a valid cookie rides along, so a tool never acts as whoever is signed
 * in to the browser. Null when the request carries no credential, or a stale or forged cookie.
 */
export async function authenticateRequest(db: Db, headers: Headers): Promise<AuthenticatedUser | null> {
  if (headers.has("authorization")) return authenticateBearer(db, headers.get("authorization"));
  if (!headers.has("cookie")) return null;
  // Loaded on first use: bearer-only callers (external tools, the in-process benchmark run by tsx, which
  // cannot load next-auth's CommonJS default export) never need next-auth.
  const { authenticateSessionCookie } = await import("./session");
  return authenticateSessionCookie(db, headers);
}
