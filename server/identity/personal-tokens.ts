import crypto from "node:crypto";
import { and, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { text } from "../../lib/rules/input-rules";
import { recordId } from "../http/record-id";
import { signUserToken } from "../auth/tokens";
import type { Tx } from "../db/client";
import { personalAccessTokens } from "../db/schema";
import { notFound } from "../errors";

const DAY_SECONDS = 24 * 60 * 60;

export const createPersonalAccessTokenInput = z.object({
  name: text(100).trim().min(1, "name is required"),
  ttlDays: z.number().int().min(1, "ttlDays must be 1 to 365").max(365, "ttlDays must be 1 to 365").default(90),
});

export const revokePersonalAccessTokenInput = z.object({ id: recordId("Token") });

/** Mints a token for external tools. The token itself is returned once and never stored. */
export async function createPersonalAccessToken(
  tx: Tx,
  userId: string,
  input: z.input<typeof createPersonalAccessTokenInput>,
) {
  const { name, ttlDays } = createPersonalAccessTokenInput.parse(input);
  const id = crypto.randomUUID();
  const ttlSeconds = ttlDays * DAY_SECONDS;
  const [row] = await tx
    .insert(personalAccessTokens)
    .values({ id, user_id: userId, name, expires_at: new Date(Date.now() + ttlSeconds * 1000) })
    .returning({ id: personalAccessTokens.id, name: personalAccessTokens.name, expires_at: personalAccessTokens.expires_at });
  return { ...row!, token: await signUserToken({ userId, ttlSeconds, tokenId: id }) };
}

/** The caller's tokens, newest first, revoked and expired ones included so that the list tells the story. */
export async function listPersonalAccessTokens(tx: Tx, userId: string) {
  return tx
    .select({
      id: personalAccessTokens.id,
      name: personalAccessTokens.name,
      created_at: personalAccessTokens.created_at,
      expires_at: personalAccessTokens.expires_at,
      revoked_at: personalAccessTokens.revoked_at,
    })
    .from(personalAccessTokens)
    .where(eq(personalAccessTokens.user_id, userId))
    .orderBy(desc(personalAccessTokens.created_at), desc(personalAccessTokens.id));
}

/** Revokes one of the caller's tokens; revoking it again keeps the first revocation time. */
export async function revokePersonalAccessToken(
  tx: Tx,
  userId: string,
  input: z.input<typeof revokePersonalAccessTokenInput>,
) {
  const { id } = revokePersonalAccessTokenInput.parse(input);
  const [row] = await tx
    .update(personalAccessTokens)
    .set({ revoked_at: sql`coalesce(${personalAccessTokens.revoked_at}, now())` })
    .where(and(eq(personalAccessTokens.id, id), eq(personalAccessTokens.user_id, userId)))
    .returning({ id: personalAccessTokens.id, revoked_at: personalAccessTokens.revoked_at });
  // Someone else's token reads exactly like a token that does not exist.
  if (!row) throw notFound("Token");
  return { id: row.id, revoked_at: row.revoked_at! };
}
