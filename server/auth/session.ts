import { and, eq, isNull, lte, or } from "drizzle-orm";
import { getToken } from "next-auth/jwt";
import { getServerSession } from "next-auth/next";
import { NextRequest } from "next/server";
import { z } from "zod";
import type { Db } from "../db/client";
import { getDatabase } from "../db/client";
import { asUser } from "../db/rls";
import { users } from "../db/schema";
import type { AuthenticatedUser } from "./authenticated-user";
import { SIGNED_IN_AT_CLAIM, secureSessionCookie, sessionOptions } from "./next-auth";

export interface SessionUser {
  id: string;
  /** An admin gave them a temporary password: they choose their own before using the app. */
  mustChoosePassword: boolean;
}

const sessionClaims = z.object({
  sub: z.uuid(),
  [SIGNED_IN_AT_CLAIM]: z.number().optional(),
  iat: z.number().optional(),
});

/**
 * The user a session token names, when they still exist, are not deactivated, and signed in no earlier
 * than their password last changed (a reset signs out every session begun before it); else null
 * (signed out). Tokens from before the sign-in claim existed count from their `iat`.
 */
async function sessionUser(db: Db, claims: unknown): Promise<SessionUser | null> {
  const parsed = sessionClaims.safeParse(claims);
  if (!parsed.success) return null;
  const id = parsed.data.sub.toLowerCase();
  const signedInAt = parsed.data[SIGNED_IN_AT_CLAIM] ?? (parsed.data.iat ?? 0) * 1000;
  const [user] = await asUser(db, id, (tx) =>
    tx
      .select({ id: users.id, mustChoosePassword: users.must_change_password })
      .from(users)
      .where(
        and(
          eq(users.id, id),
          isNull(users.deactivated_at),
          or(isNull(users.password_changed_at), lte(users.password_changed_at, new Date(signedInAt))),
        ),
      ),
  );
  return user ?? null;
}

/** The signed-in user of the current page or server component, or null. */
export async function getSessionUser(): Promise<SessionUser | null> {
  const session = await getServerSession(sessionOptions);
  if (!session) return null;
  return sessionUser((await getDatabase()).db, { sub: session.user?.id, [SIGNED_IN_AT_CLAIM]: session[SIGNED_IN_AT_CLAIM] });
}

/** The signed-in user's id of the current page or server component, or null. */
export async function getSessionUserId(): Promise<string | null> {
  return (await getSessionUser())?.id ?? null;
}

/** The user of the next-auth session cookie among these request headers, or null (no, stale or forged cookie). */
export async function authenticateSessionCookie(db: Db, headers: Headers): Promise<AuthenticatedUser | null> {
  if (!headers.has("cookie")) return null;
  const token = await getToken({
    // Only the cookie is read here: callers handle the Authorization header before falling back to this.
    req: new NextRequest("http://session.invalid/", { headers: { cookie: headers.get("cookie")! } }),
    secret: sessionOptions.secret,
    secureCookie: secureSessionCookie,
  });
  const user = await sessionUser(db, token);
  if (!user) return null;
  return user.mustChoosePassword ? { id: user.id, mustChoosePassword: true } : { id: user.id };
}
