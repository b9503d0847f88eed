/**
 * The one reading of a database error, whichever driver raised it: postgres.js and PGlite put the
 * SQLSTATE (and the constraint's name) on the error; drizzle wraps it in a DrizzleQueryError whose
 * cause is the driver's error. Rules the database enforces under concurrency (unique indexes, foreign
 * keys) are recognised here, so that the domain can answer a clear 409 instead of a 500.
 */

export const UNIQUE_VIOLATION = "23505";
export const FOREIGN_KEY_VIOLATION = "23503";

interface PostgresErrorFields {
  code: string;
  constraint?: string;
  constraint_name?: string;
}

/** The driver's error inside `error` (walking drizzle's `cause` chain), or null when it is another error. */
function postgresError(error: unknown): PostgresErrorFields | null {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth += 1) {
    const fields = current as Partial<PostgresErrorFields> & { cause?: unknown };
    if (typeof fields.code === "string" && /^[0-9A-Z]{5}$/.test(fields.code)) return fields as PostgresErrorFields;
    current = fields.cause;
  }
  return null;
}

/** The SQLSTATE of a database error, or undefined when `error` is not one. */
export function postgresErrorCode(error: unknown): string | undefined {
  return postgresError(error)?.code;
}

/** The name of the unique constraint `error` violated ("" when the driver does not say), or null when it is another error. */
export function violatedUniqueConstraint(error: unknown): string | null {
  const fields = postgresError(error);
  if (fields?.code !== UNIQUE_VIOLATION) return null;
  return fields.constraint_name ?? fields.constraint ?? "";
}
