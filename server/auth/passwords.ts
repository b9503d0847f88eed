import "#server-only";
import crypto from "node:crypto";
import { promisify } from "node:util";

const scrypt = promisify(crypto.scrypt) as (
  password: crypto.BinaryLike,
  salt: crypto.BinaryLike,
  keylen: number,
  options: crypto.ScryptOptions,
) => Promise<Buffer>;

// scrypt is memory-hard: N=2^15, r=8 needs 32 MiB per hash, which makes GPU guessing expensive.
const COST_LOG2 = 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;

export const MIN_PASSWORD_LENGTH = 8;

/** Returns `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`, self-describing so that costs can rise later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const hash = await scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, {
    N: 2 ** COST_LOG2,
    r: BLOCK_SIZE,
    p: PARALLELISM,
    maxmem: MAX_MEMORY,
  });
  return ["scrypt", COST_LOG2, BLOCK_SIZE, PARALLELISM, salt.toString("base64"), hash.toString("base64")].join("$");
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = stored?.split("$");
  if (!parts || parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [, costLog2, blockSize, parallelism, salt, expected] = parts as [string, string, string, string, string, string];
  const expectedBytes = Buffer.from(expected, "base64");
  const actual = await scrypt(password.normalize("NFKC"), Buffer.from(salt, "base64"), expectedBytes.length, {
    N: 2 ** Number(costLog2),
    r: Number(blockSize),
    p: Number(parallelism),
    maxmem: MAX_MEMORY,
  });
  return crypto.timingSafeEqual(actual, expectedBytes);
}

/** Letters and digits that cannot be misread for one another (no 0/o, 1/l/i): said over the phone or copied from paper. */
const TEMPORARY_PASSWORD_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
const TEMPORARY_PASSWORD_GROUPS = 3;
const TEMPORARY_PASSWORD_GROUP_LENGTH = 4;

/**
 * A temporary password an admin hands over: 12 characters from a 31-letter alphabet (about 59 bits,
 * crypto random) in groups of four, like "k7mp-x2wq-9rtd". The user must choose their own at the next sign-in.
 */
export function generateTemporaryPassword(): string {
  const group = () =>
    Array.from({ length: TEMPORARY_PASSWORD_GROUP_LENGTH }, () => TEMPORARY_PASSWORD_ALPHABET[crypto.randomInt(TEMPORARY_PASSWORD_ALPHABET.length)]).join("");
  return Array.from({ length: TEMPORARY_PASSWORD_GROUPS }, group).join("-");
}
