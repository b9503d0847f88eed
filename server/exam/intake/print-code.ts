import crypto from "node:crypto";

/**
 * The text of the QR code stamped on every printed page (decision record: docs/decisions.md,
 * "Class-set intake"):
 *
 *   MB1:<batch code>:<script number>:<page>:<check>      e.g. MB1:7KQ2XH:17:3:K9
 *
 * - `MB1` says the code is Markbook's, format 1, so a page carrying some other QR code is never taken for ours;
 * - the batch code is 6 characters of Crockford base32, given to a batch at its first print;
 * - the script number (1–9999) names a printed script of that batch: a student's, or a spare copy;
 * - the page is the template page (1–999);
 * - the check is 2 base32 characters of a SHA-256 of the rest, so a misread or hand-altered code is
 *   refused rather than filed in the wrong place.
 * Upper case, digits and `:` only, so the code is encoded in QR's alphanumeric mode: a class set's
 * codes (scripts and pages below 100) fit a version-1 code, 21 modules wide.
 */

export const PRINT_CODE_FORMAT = "MB1";
/** Crockford's base32: no I, L, O or U, which a person could misread. */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const BATCH_CODE = /^[0-9A-HJKMNP-TV-Z]{6}$/;
export const MAX_SCRIPT_NUMBER = 9999;
export const MAX_PRINTED_PAGE = 999;

export interface PageCode {
  batchCode: string;
  scriptNumber: number;
  page: number;
}

/** A fresh batch code: 30 random bits (unique per installation by the database's constraint). */
export function newBatchCode(): string {
  const bytes = crypto.randomBytes(6);
  return Array.from(bytes, (byte) => ALPHABET[byte & 31]).join("");
}

export function isBatchCode(text: string): boolean {
  return BATCH_CODE.test(text);
}

function checkValue(body: string): string {
  const digest = crypto.createHash("sha256").update(body).digest();
  return ALPHABET[digest[0]! & 31]! + ALPHABET[digest[1]! & 31]!;
}

export function encodePageCode({ batchCode, scriptNumber, page }: PageCode): string {
  if (!isBatchCode(batchCode)) throw new RangeError(`not a batch code: ${batchCode}`);
  if (!Number.isInteger(scriptNumber) || scriptNumber < 1 || scriptNumber > MAX_SCRIPT_NUMBER) throw new RangeError(`script number out of range: ${scriptNumber}`);
  if (!Number.isInteger(page) || page < 1 || page > MAX_PRINTED_PAGE) throw new RangeError(`page out of range: ${page}`);
  const body = `${PRINT_CODE_FORMAT}:${batchCode}:${scriptNumber}:${page}`;
  return `${body}:${checkValue(body)}`;
}

const CODE = /^MB1:([0-9A-HJKMNP-TV-Z]{6}):([1-9][0-9]{0,3}):([1-9][0-9]{0,2}):([0-9A-HJKMNP-TV-Z]{2})$/;

/** What a QR text read off a page is. */
export type DecodedPageCode =
  | ({ kind: "page" } & PageCode)
  /** Says it is ours (starts MB1:) but is malformed or fails its check: a misread or an altered code. */
  | { kind: "damaged" }
  /** Some other QR code (the paper's own, a link): not a Markbook page code. */
  | { kind: "other" };

export function decodePageCode(text: string): DecodedPageCode {
  const trimmed = text.trim();
  if (!trimmed.startsWith(`${PRINT_CODE_FORMAT}:`)) return { kind: "other" };
  const match = CODE.exec(trimmed);
  if (!match) return { kind: "damaged" };
  const [, batchCode, script, page, check] = match;
  if (checkValue(`${PRINT_CODE_FORMAT}:${batchCode}:${script}:${page}`) !== check) return { kind: "damaged" };
  return { kind: "page", batchCode: batchCode!, scriptNumber: Number(script), page: Number(page) };
}
