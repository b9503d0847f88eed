import { sql } from "drizzle-orm";
import { type Db, rowsOf } from "../db/client";
import { AppError } from "../errors";
import { bearerToken, verifyUserToken } from "./tokens";

export interface AuthenticatedUser {
  id: string;
}

/** Why a verified token is refused, by app.user_token_state's answer. */
const refusals = {
  unknown_user: "Token user no longer exists",
  deactivated: "This user account is deactivated",
  revoked: "Token was revoked",
} as const;

/**
 * Verifies a user token and that its user still exists and is not deactivated (and, for a personal
 * access token, that it was not revoked). Every failure is the same 401 family, with a message that says which.
 *
 * The check is one statement (app.user_token_state, migrations 0005 and 0008) rather than an RLS transaction:
 * it runs on every request, and a transaction is four round trips (measured 390 µs of Node CPU and
 * 240 µs of PostgreSQL CPU per request against about 50 and 35). The function answers only whether the
 * token's own user and token row are live.
 */
export async function authenticateToken(db: Db, token: string): Promise<AuthenticatedUser> {
  const claims = await verifyUserToken(token);
  const [row] = rowsOf<{ state: "live" | "unknown_user" | "deactivated" | "revoked" }>(
    await db.execute(sql`select app.user_token_state(${claims.userId}::uuid, ${claims.tokenId ?? null}::uuid) as state`),
  );
  if (row?.state !== "live") throw new AppError("unauthenticated", refusals[row?.state ?? "unknown_user"]);
  return { id: claims.userId };
}

export async function authenticateBearer(db: Db, authorization: string | null): Promise<AuthenticatedUser> {
  const token = bearerToken(authorization);
  if (!token) throw new AppError("unauthenticated", "Missing bearer token (Authorization: Bearer <token>)");
  return authenticateToken(db, token);
}
