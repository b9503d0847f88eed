/**
 * The SQLSTATE of a database error, whichever driver raised it (postgres.js and PGlite put it on the
 * error; drizzle wraps it in a DrizzleQueryError whose cause is the driver's error).
 */
export function postgresErrorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export const UNIQUE_VIOLATION = "23505";
export const FOREIGN_KEY_VIOLATION = "23503";
export const CHECK_VIOLATION = "23514";
