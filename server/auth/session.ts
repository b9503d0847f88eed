import { and, eq, isNull } from "drizzle-orm";
import { getToken } from "next-auth/jwt";
import { getServerSession } from "next-auth/next";
import { NextRequest } from "next/server";
import { z } from "zod";
import type { Db } from "../db/client";
import { getDatabase } from "../db/client";
import { asUser } from "../db/rls";
import { users } from "../db/schema";
import type { AuthenticatedUser } from "./authenticate";
import { authOptions, secureSessionCookie } from "./next-auth";

/** The id named by a session, when it is a user id of a user who still exists and is not deactivated (else signed out). */
async function existingUserId(db: Db, subject: unknown): Promise<string | null> {
  const parsed = z.uuid().safeParse(subject);
  if (!parsed.success) return null;
  const id = parsed.data.toLowerCase();
  const [user] = await asUser(db, id, (tx) => tx.select({ id: users.id }).from(users).where(and(eq(users.id, id), isNull(users.deactivated_at))));
  return user?.id ?? null;
}

/** The signed-in user of the current page or server component, or null. */
export async function getSessionUserId(): Promise<string | null> {
  const session = await getServerSession(authOptions);
  if (!session) return null;
  return existingUserId((await getDatabase()).db, session.user?.id);
}

/** The user of the next-auth session cookie among these request headers, or null (no, stale or forged cookie). */
export async function authenticateSessionCookie(db: Db, headers: Headers): Promise<AuthenticatedUser | null> {
  if (!headers.has("cookie")) return null;
  const token = await getToken({
    // Only the cookie is read here: callers handle the Authorization header before falling back to this.
    req: new NextRequest("http://session.invalid/", { headers: { cookie: headers.get("cookie")! } }),
    secret: authOptions.secret,
    secureCookie: secureSessionCookie,
  });
  const id = await existingUserId(db, token?.sub);
  return id ? { id } : null;
}
