import crypto from "node:crypto";
import { z } from "zod";
import { text } from "../http/input-rules";
import type { Db } from "../db/client";
import { asService } from "../db/rls";
import { findUserByEmail } from "../identity/users";
import { hashPassword, verifyPassword } from "./passwords";

export const credentialsInput = z.object({
  email: text(320).trim().min(1),
  password: text(1024).min(1),
});

export interface SignedInUser {
  id: string;
  email: string;
  name: string;
}

// A hash of a random password, checked when the email is unknown or has no password, so that every
// failed sign-in costs the same scrypt work and the timing does not tell which emails exist.
let decoyHash: Promise<string> | undefined;
const decoy = () => (decoyHash ??= hashPassword(crypto.randomBytes(32).toString("base64url")));

/**
 * The user whose email and password these are, or null. Unknown email and wrong password are the same
 * null: sign-in never reveals which accounts exist. A credential check is a named asService exception
 * (the caller is nobody yet, so row-level security has no user to apply).
 */
export async function verifyCredentials(db: Db, credentials: unknown): Promise<SignedInUser | null> {
  const parsed = credentialsInput.safeParse(credentials);
  if (!parsed.success) return null;
  const { email, password } = parsed.data;
  const user = await asService(db, (tx) => findUserByEmail(tx, email));
  const stored = user?.password_hash ?? (await decoy());
  const matches = await verifyPassword(password, stored);
  // A deactivated user is refused like a wrong password (after the same work), so sign-in still reveals nothing.
  if (!user?.password_hash || !matches || user.deactivated_at) return null;
  return { id: user.id, email: user.email, name: user.display_name };
}
