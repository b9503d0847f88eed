import { redirect } from "next/navigation";
import { cache } from "react";
import { getSessionUser } from "@/server/auth/session";
import { getDatabase } from "@/server/db/client";
import { createCaller } from "@/server/trpc/root";

const sessionUser = cache(getSessionUser);

const profileOf = cache(async (userId: string) => {
  const { db } = await getDatabase();
  return createCaller({ db, user: { id: userId } }).me.profile();
});

/**
 * The signed-in user's profile (`me.profile`), read once per request. Signed out: to /signin, and back
 * to `returnTo` after signing in when it is given. Someone who was given a temporary password first
 * chooses their own (/choose-password).
 */
export async function requireSignedInProfile(returnTo?: string) {
  const user = await sessionUser();
  if (!user) redirect(returnTo ? `/signin?callbackUrl=${encodeURIComponent(returnTo)}` : "/signin");
  if (user.mustChoosePassword) redirect("/choose-password");
  return profileOf(user.id);
}

/**
 * The profile when someone is signed in and may use the app, else null without redirecting: for
 * layouts, which leave the redirect (and where to come back to) to their pages.
 */
export async function signedInProfileOrNull() {
  const user = await sessionUser();
  return user && !user.mustChoosePassword ? profileOf(user.id) : null;
}
