import { redirect } from "next/navigation";
import { cache } from "react";
import { getSessionUserId } from "@/server/auth/session";
import { getDatabase } from "@/server/db/client";
import { createCaller } from "@/server/trpc/root";

const sessionUserId = cache(getSessionUserId);

const profileOf = cache(async (userId: string) => {
  const { db } = await getDatabase();
  return createCaller({ db, user: { id: userId } }).me.profile();
});

/**
 * The signed-in user's profile (`me.profile`), read once per request. Signed out: to /signin, and back
 * to `returnTo` after signing in when it is given.
 */
export async function requireSignedInProfile(returnTo?: string) {
  const userId = await sessionUserId();
  if (!userId) redirect(returnTo ? `/signin?callbackUrl=${encodeURIComponent(returnTo)}` : "/signin");
  return profileOf(userId);
}
