import crypto from "node:crypto";
import { and, desc, eq, isNull, lt, or, sql } from "drizzle-orm";
import { z } from "zod";
import { text } from "../../lib/rules/input-rules";
import { type Tx, rowsOf } from "../db/client";
import { apiKeys, institutes, users } from "../db/schema";
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
  /** The institute the key belongs to; absent, an installation key (the command line's). */
  instituteId: z.uuid("institute must be an institute id").optional(),
});

const hashApiKey = (key: string) => crypto.createHash("sha256").update(key).digest("hex");

/** Creates a key; row-level security decides whether the caller may create it for that institute. */
export async function createApiKey(tx: Tx, input: z.input<typeof createApiKeyInput>) {
  const { name, createdBy, instituteId } = createApiKeyInput.parse(input);
  if (instituteId) {
    const [institute] = await tx.select({ id: institutes.id }).from(institutes).where(eq(institutes.id, instituteId));
    if (!institute) throw notFound("Institute");
  }
  const key = KEY_PREFIX + crypto.randomBytes(32).toString("base64url");
  const [row] = await tx
    .insert(apiKeys)
    .values({
      name,
      prefix: key.slice(0, SHOWN_PREFIX_LENGTH),
      key_hash: hashApiKey(key),
      created_by: createdBy ?? null,
      institute_id: instituteId ?? null,
    })
    .returning({ id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix, institute_id: apiKeys.institute_id, created_at: apiKeys.created_at });
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

/**
 * Revokes a key (idempotent). A key that does not exist, or that row-level security hides from the
 * caller (another school's, an installation key), is 404.
 */
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

export const listApiKeysInput = z.object({ instituteId: z.uuid("institute must be an institute id").optional() });

/**
 * The keys the caller sees, newest first, optionally of one institute: name, shown prefix, owner and
 * dates; never the key or its hash. As a school admin (row-level security): the keys of the institutes
 * they administer. As the service (the command line): every key, installation keys included.
 */
export async function listApiKeys(tx: Tx, input: z.input<typeof listApiKeysInput> = {}) {
  const { instituteId } = listApiKeysInput.parse(input);
  return tx
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      prefix: apiKeys.prefix,
      institute_id: apiKeys.institute_id,
      created_by_name: users.display_name,
      created_at: apiKeys.created_at,
      last_used_at: apiKeys.last_used_at,
      revoked_at: apiKeys.revoked_at,
    })
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.created_by))
    .where(instituteId ? eq(apiKeys.institute_id, instituteId) : undefined)
    .orderBy(desc(apiKeys.created_at), desc(apiKeys.id));
}

/**
 * The institute a school admin manages keys of: the one named, which they must administer (403);
 * else the only one they administer; an admin of several must name it (400, as for templates).
 * Someone who administers no institute is 403. Read from the caller's scope (app.my_admin_institute_ids),
 * the set the database's policies use, so this check and row-level security cannot disagree.
 */
async function speechKeyInstitute(tx: Tx, requested?: string | null): Promise<string> {
  const administered = rowsOf<{ id: string }>(await tx.execute(sql`select app.my_admin_institute_ids() as id`)).map((row) => row.id);
  if (administered.length === 0) throw new AppError("forbidden", "Only a school admin manages speech API keys");
  if (requested) {
    const chosen = requested.toLowerCase();
    if (!administered.includes(chosen)) throw new AppError("forbidden", "You are not a school admin of that institute", "institute_id");
    return chosen;
  }
  if (administered.length > 1) {
    throw new AppError("invalid", "School: you are an admin of several schools, so say which one the key is for (institute_id)", "institute_id");
  }
  return administered[0]!;
}

/**
 * Only a school admin manages speech API keys (the database's policies say the same; this check turns
 * "no rows" into a clear 403 for everyone else).
 */
export async function requireSpeechKeyAdmin(tx: Tx, action = "manages speech API keys"): Promise<void> {
  const [row] = rowsOf<{ admin: boolean }>(await tx.execute(sql`select exists (select app.my_admin_institute_ids()) as admin`));
  if (!row?.admin) throw new AppError("forbidden", `Only a school admin ${action}`);
}

/**
 * The keys a school admin manages from Settings: those of the institute named (which they must
 * administer), else of every institute they administer; 403 for anyone else.
 */
export async function listSchoolApiKeys(tx: Tx, input: { institute_id?: string | undefined } | undefined) {
  if (input?.institute_id) await speechKeyInstitute(tx, input.institute_id);
  else await requireSpeechKeyAdmin(tx);
  return (await listApiKeys(tx, { instituteId: input?.institute_id })).map((key) => ({ ...key, institute_id: key.institute_id! }));
}

/** A key made by a school admin for their institute (the one named: required for an admin of several); the key itself is in this reply only. */
export async function createSchoolApiKey(tx: Tx, userId: string, input: { name: string; institute_id?: string | undefined }) {
  const instituteId = await speechKeyInstitute(tx, input.institute_id);
  const created = await createApiKey(tx, { name: input.name, createdBy: userId, instituteId });
  return { ...created, institute_id: instituteId };
}

/** A school admin revokes a key of their institute (another's, or an installation key, is 404). */
export async function revokeSchoolApiKey(tx: Tx, input: z.input<typeof revokeApiKeyInput>) {
  await requireSpeechKeyAdmin(tx);
  return revokeApiKey(tx, input);
}
