import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Tx } from "../db/client";
import { users } from "../db/schema";
import { AppError, notFound } from "../errors";
import { text } from "../http/input-rules";
import { MIN_PASSWORD_LENGTH, hashPassword, verifyPassword } from "./passwords";

export const choosePasswordInput = z.object({
  current_password: text(1024, "Type the password you signed in with").min(1, "Type the password you signed in with"),
  new_password: text(1024, "Choose a new password").min(MIN_PASSWORD_LENGTH, `Your new password needs at least ${MIN_PASSWORD_LENGTH} characters`),
});

/**
 * The caller chooses their own password, typing the one they have (the temporary one an admin gave
 * them, or their old one). Their other sessions are signed out (password_changed_at); the page signs
 * them in again with the new password. Afterwards they no longer must change it.
 */
export async function chooseOwnPassword(tx: Tx, callerId: string, input: z.input<typeof choosePasswordInput>) {
  const { current_password, new_password } = choosePasswordInput.parse(input);
  const [user] = await tx.select({ password_hash: users.password_hash }).from(users).where(eq(users.id, callerId));
  if (!user) throw notFound("User");
  if (!(await verifyPassword(current_password, user.password_hash))) {
    throw new AppError("invalid", "The current password is not right", "current_password");
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
