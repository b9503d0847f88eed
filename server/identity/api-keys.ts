import crypto from "node:crypto";
import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import { z } from "zod";
import { text } from "../http/input-rules";
import { type Tx, rowsOf } from "../db/client";
import { apiKeys } from "../db/schema";
import { AppError, notFound } from "../errors";

/**
 * Keys of the speech service (`/v1`): "mk_" + 32 random bytes (base64url). Only a SHA-256 of the key
 * is stored, with a short prefix so that people can recognise a key in a list; the key is shown once.
 * A plain hash (not scrypt) is enough: the key is random, not a guessable password.
 */
const KEY_PREFIX = "mk_";
const SHOWN_PREFIX_LENGTH = KEY_PREFIX.length + 6;
/** last_used_at is a hint, not an audit log: write it at most once a minute per key. */
const LAST_USED_RESOLUTION_MS = 60_000;

export const createApiKeyInput = z.object({
  name: text(100).trim().min(1, "name is required"),
  createdBy: z.uuid().optional(),
});

export const hashApiKey = (key: string) => crypto.createHash("sha256").update(key).digest("hex");

export async function createApiKey(tx: Tx, input: z.input<typeof createApiKeyInput>) {
  const { name, createdBy } = createApiKeyInput.parse(input);
  const key = KEY_PREFIX + crypto.randomBytes(32).toString("base64url");
  const [row] = await tx
    .insert(apiKeys)
    .values({ name, prefix: key.slice(0, SHOWN_PREFIX_LENGTH), key_hash: hashApiKey(key), created_by: createdBy ?? null })
    .returning({ id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix, created_at: apiKeys.created_at });
  return { ...row!, key };
}

/** The live (not revoked) key that `key` is, or null. Runs as the service: the caller is not a user. */
export async function verifyApiKey(tx: Tx, key: string) {
  if (!key.startsWith(KEY_PREFIX) || key.length > 200) return null;
  const presentedHash = hashApiKey(key);
  const [row] = await tx
    .select({ id: apiKeys.id, name: apiKeys.name, key_hash: apiKeys.key_hash, last_used_at: apiKeys.last_used_at })
    .from(apiKeys)
    .where(and(eq(apiKeys.key_hash, presentedHash), isNull(apiKeys.revoked_at)));
  // The lookup is by hash; the final comparison is constant-time all the same, so that no code path
  // compares secret-derived bytes with an early exit.
  if (!row || !crypto.timingSafeEqual(Buffer.from(row.key_hash, "hex"), Buffer.from(presentedHash, "hex"))) return null;
  const now = new Date();
  if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) {
    await tx
      .update(apiKeys)
      .set({ last_used_at: now })
      .where(
        and(
          eq(apiKeys.id, row.id),
          or(isNull(apiKeys.last_used_at), lt(apiKeys.last_used_at, new Date(now.getTime() - LAST_USED_RESOLUTION_MS))),
        ),
      );
  }
  return { id: row.id, name: row.name };
}

export const revokeApiKeyInput = z.object({ id: z.uuid() });

/** Revokes a key (idempotent); a key that does not exist is 404. */
export async function revokeApiKey(tx: Tx, input: z.input<typeof revokeApiKeyInput>) {
  const { id } = revokeApiKeyInput.parse(input);
  const [row] = await tx
    .update(apiKeys)
    .set({ revoked_at: sql`coalesce(${apiKeys.revoked_at}, now())` })
    .where(eq(apiKeys.id, id))
    .returning({ id: apiKeys.id, revoked_at: apiKeys.revoked_at });
  if (!row) throw notFound("API key");
  return row;
}

/** Every key, newest first: name, shown prefix and dates; never the key or its hash. */
export async function listApiKeys(tx: Tx) {
  return tx
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      prefix: apiKeys.prefix,
      created_at: apiKeys.created_at,
      last_used_at: apiKeys.last_used_at,
      revoked_at: apiKeys.revoked_at,
    })
    .from(apiKeys)
    .orderBy(desc(apiKeys.created_at));
}

/**
 * Speech API keys serve the whole installation, so only a school admin manages them (the database's
 * policy says the same; this check turns "no rows" into a clear 403 for everyone else).
 */
export async function requireSpeechKeyAdmin(tx: Tx): Promise<void> {
  const [row] = rowsOf<{ admin: boolean }>(await tx.execute(sql`select exists (select app.my_admin_institute_ids()) as admin`));
  if (!row?.admin) throw new AppError("forbidden", "Only a school admin manages speech API keys");
}
