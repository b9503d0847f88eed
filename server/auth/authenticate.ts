import { and, eq, gt, isNull } from "drizzle-orm";
import type { Db } from "../db/client";
import { asUser } from "../db/rls";
import { personalAccessTokens, users } from "../db/schema";
import { AppError } from "../errors";
import { bearerToken, verifyUserToken } from "./tokens";

export interface AuthenticatedUser {
  id: string;
}

/**
 * Verifies a user token and that its user still exists (and, for a personal access token, that it was
 * not revoked). Every failure is the same 401 family, with a message that says which.
 */
export async function authenticateToken(db: Db, token: string): Promise<AuthenticatedUser> {
  const claims = await verifyUserToken(token);
  const known = await asUser(db, claims.userId, async (tx) => {
    const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, claims.userId));
    if (!user || !claims.tokenId) return Boolean(user);
    const [live] = await tx
      .select({ id: personalAccessTokens.id })
      .from(personalAccessTokens)
      .where(
        and(
          eq(personalAccessTokens.id, claims.tokenId),
          isNull(personalAccessTokens.revoked_at),
          gt(personalAccessTokens.expires_at, new Date()),
        ),
      );
    return Boolean(live);
  });
  if (!known) throw new AppError("unauthenticated", claims.tokenId ? "Token was revoked" : "Token user no longer exists");
  return { id: claims.userId };
}

export async function authenticateBearer(db: Db, authorization: string | null): Promise<AuthenticatedUser> {
  const token = bearerToken(authorization);
  if (!token) throw new AppError("unauthenticated", "Missing bearer token (Authorization: Bearer <token>)");
  return authenticateToken(db, token);
}
