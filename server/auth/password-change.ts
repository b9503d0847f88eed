import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db, Tx } from "../db/client";
import { asUser } from "../db/rls";
import { users } from "../db/schema";
import { AppError, notFound } from "../errors";
import { text } from "../../lib/rules/input-rules";
import { MIN_PASSWORD_LENGTH, hashPassword, verifyPassword } from "./passwords";
import { accountThrottle, blockedUntil, countFailure, forgetFailures, throttledError } from "./sign-in-throttle";

const CURRENT_PASSWORD_WRONG = "The current password is not right";

export const choosePasswordInput = z.object({
  current_password: text(1024, "Type the password you signed in with").min(1, "Type the password you signed in with"),
  new_password: text(1024, "Choose a new password").min(MIN_PASSWORD_LENGTH, `Your new password needs at least ${MIN_PASSWORD_LENGTH} characters`),
});

/**
 * The caller chooses their own password, typing the one they have (the temporary one an admin gave
 * them, or their old one). Their other sessions are signed out (password_changed_at); the page signs
 * them in again with the new password. Afterwards they no longer must change it.
 */
async function chooseOwnPassword(tx: Tx, callerId: string, input: z.input<typeof choosePasswordInput>) {
  const { current_password, new_password } = choosePasswordInput.parse(input);
  const [user] = await tx.select({ password_hash: users.password_hash }).from(users).where(eq(users.id, callerId));
  if (!user) throw notFound("User");
  if (!(await verifyPassword(current_password, user.password_hash))) {
    throw new AppError("invalid", CURRENT_PASSWORD_WRONG, "current_password");
  }
  if (new_password === current_password) {
    throw new AppError("invalid", "Choose a new password that differs from the one you were given", "new_password");
  }
  await tx
    .update(users)
    .set({ password_hash: await hashPassword(new_password), must_change_password: false, password_changed_at: new Date() })
    .where(eq(users.id, callerId));
  return { changed: true as const };
}

/**
 * chooseOwnPassword in the caller's own transaction, with the current password's guesses counted like a
 * sign-in's against the caller's account (server/auth/sign-in-throttle.ts): a session somebody else got
 * hold of cannot try current passwords without limit. The count is kept outside the transaction, which a
 * wrong password rolls back.
 */
export async function chooseOwnPasswordThrottled(db: Db, callerId: string, input: z.input<typeof choosePasswordInput>, now = Date.now()) {
  const [caller] = await asUser(db, callerId, (tx) => tx.select({ email: users.email }).from(users).where(eq(users.id, callerId)));
  if (!caller) throw notFound("User");
  const account = accountThrottle(caller.email);
  const until = await blockedUntil(db, [account], now);
  if (until !== null) throw throttledError(until, now);
  try {
    const changed = await asUser(db, callerId, (tx) => chooseOwnPassword(tx, callerId, input));
    await forgetFailures(db, [account]);
    return changed;
  } catch (error) {
    if (error instanceof AppError && error.message === CURRENT_PASSWORD_WRONG) await countFailure(db, [account], now);
    throw error;
  }
}
