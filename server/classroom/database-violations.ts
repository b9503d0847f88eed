/**
 * Recognises constraint violations reported by PostgreSQL (postgres.js) and PGlite, through drizzle's
 * wrapping (`DrizzleQueryError.cause`), so that rules the database enforces under concurrency (unique
 * indexes) become a clear 409 instead of a 500.
 */
interface PgErrorFields {
  code?: string;
  constraint?: string;
  constraint_name?: string;
}

function pgErrorOf(error: unknown): PgErrorFields | null {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth += 1) {
    const fields = current as PgErrorFields & { cause?: unknown };
    if (typeof fields.code === "string" && /^[0-9A-Z]{5}$/.test(fields.code)) return fields;
    current = fields.cause;
  }
  return null;
}

/** The name of the unique constraint `error` violated, or null when it is another error. */
export function violatedUniqueConstraint(error: unknown): string | null {
  const pgError = pgErrorOf(error);
  if (pgError?.code !== "23505") return null;
  return pgError.constraint_name ?? pgError.constraint ?? "";
}
