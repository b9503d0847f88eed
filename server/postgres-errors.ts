/**
 * The one reading of a database error, whichever driver raised it: postgres.js and PGlite put the
 * SQLSTATE (and the constraint's name) on the error; drizzle wraps it in a DrizzleQueryError whose
 * cause is the driver's error. Rules the database enforces under concurrency (unique indexes, foreign
 * keys) are recognised here, so that the domain can answer a clear 409 instead of a 500.
 */

export const UNIQUE_VIOLATION = "23505";
export const FOREIGN_KEY_VIOLATION = "23503";
/** A row-level security policy refused the row (or a privilege is missing). */
export const INSUFFICIENT_PRIVILEGE = "42501";

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

/** PostgreSQL's fields of a driver's error (postgres.js and PGlite name some of them differently). */
interface PostgresErrorReport {
  code: string;
  message?: string;
  detail?: string;
  hint?: string;
  /** postgres.js keeps the query's values here (not enumerable), PGlite in `params`: only ever read to hide them. */
  parameters?: unknown[];
  params?: unknown[];
}

/** The values a failed query was given: drizzle's DrizzleQueryError keeps them, and each driver too. */
function queryParameters(error: unknown): unknown[] {
  const values: unknown[] = [];
  let current: unknown = error;
  for (let depth = 0; current && typeof current === "object" && depth < 5; depth += 1) {
    const fields = current as { params?: unknown; parameters?: unknown; cause?: unknown };
    if (Array.isArray(fields.params)) values.push(...(fields.params as unknown[]));
    if (Array.isArray(fields.parameters)) values.push(...(fields.parameters as unknown[]));
    current = fields.cause;
  }
  return values;
}

/** A value's text as PostgreSQL may echo it (a string as is, a number as digits, anything else as JSON). */
function parameterTexts(values: unknown[]): string[] {
  const texts = new Set<string>();
  for (const value of values) {
    if (value === null || value === undefined) continue;
    if (typeof value === "string") texts.add(value);
    else if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") texts.add(String(value));
    else if (value instanceof Date) texts.add(value.toISOString());
    else if (value instanceof Uint8Array) continue;
    else {
      try {
        texts.add(JSON.stringify(value));
      } catch {
        // a value that cannot be written out cannot be echoed either
      }
    }
  }
  return [...texts].filter((text) => text.length > 0).sort((a, b) => b.length - a.length);
}

/** Shortest value hidden wherever it appears; a shorter one is hidden only where PostgreSQL quotes a value. */
const HIDDEN_ANYWHERE_MIN_LENGTH = 4;
const HIDDEN_VALUE = "<value>";

/**
 * `text` with the query's values hidden: quoted text ("…") holding one, PostgreSQL's `(column)=(values)`
 * and `Failing row contains (…)` of its details, and any value of 4 or more characters anywhere.
 */
function withoutValues(text: string, values: string[]): string {
  const holdsValue = (quoted: string) => values.some((value) => quoted.includes(value));
  let result = text
    .replace(/\)=\((.*)\)/g, `)=(${HIDDEN_VALUE})`)
    .replace(/Failing row contains \((.*)\)/g, `Failing row contains (${HIDDEN_VALUE})`)
    .replace(/"((?:[^"]|"")*)"/g, (whole, quoted: string) => (holdsValue(quoted) ? `"${HIDDEN_VALUE}"` : whole));
  for (const value of values) {
    if (value.length >= HIDDEN_ANYWHERE_MIN_LENGTH) result = result.split(value).join(HIDDEN_VALUE);
  }
  return result;
}

/**
 * PostgreSQL's own account of a failed query, for the log: its SQLSTATE, message, detail and hint,
 * with the query's values hidden (a detail such as `Key (email)=(…) already exists` names them), or
 * null when `error` is not a database error.
 */
function databaseErrorCause(error: unknown): string | null {
  const fields = driverError(error);
  if (!fields) return null;
  const values = parameterTexts(queryParameters(error));
  const parts = [`SQLSTATE ${fields.code}: ${withoutValues(fields.message ?? "(no message)", values)}`];
  if (fields.detail) parts.push(`detail: ${withoutValues(fields.detail, values)}`);
  if (fields.hint) parts.push(`hint: ${withoutValues(fields.hint, values)}`);
  return parts.join("; ");
}

/** The driver's error in `error`'s cause chain: a SQLSTATE and PostgreSQL's severity (not Node's EPIPE). */
function driverError(error: unknown): PostgresErrorReport | null {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === "object" && depth < 5; depth += 1) {
    const fields = current as Partial<PostgresErrorReport> & { severity?: unknown; cause?: unknown };
    if (typeof fields.code === "string" && /^[0-9A-Z]{5}$/.test(fields.code) && typeof fields.severity === "string") {
      return fields as PostgresErrorReport;
    }
    current = fields.cause;
  }
  return null;
}

/** drizzle's "Failed query: <sql>\nparams: <values>" error: its SQL is logged, never its values. */
function failedQuery(error: unknown): string | null {
  const fields = error as { message?: unknown; query?: unknown; params?: unknown };
  if (!(error instanceof Error) || typeof fields.query !== "string" || !Array.isArray(fields.params)) return null;
  if (typeof fields.message !== "string" || !fields.message.startsWith("Failed query:")) return null;
  return `Failed query: ${fields.query}`;
}

/**
 * An error as the log shows it: its message and stack, each cause's after it, and for a database error
 * PostgreSQL's code and message; a failed query's SQL but never its parameters' values.
 */
export function errorForLog(error: Error): string {
  const lines: string[] = [];
  const values = parameterTexts(queryParameters(error));
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth += 1) {
    if ((driverError(current) as unknown) === current) break; // said below, from its fields
    const query = failedQuery(current);
    const frames = (current.stack ?? "").split("\n").filter((line) => /^\s+at /.test(line));
    // Another error may repeat drizzle's message (tRPC's wrapper does): its params line goes too.
    const message = current.message.replace(/^(Failed query: [\s\S]*?)\nparams: [\s\S]*$/, "$1");
    const heading = query ?? withoutValues(`${current.name}: ${message}`, values);
    lines.push(`${depth === 0 ? "" : "caused by: "}${heading}`, ...frames);
    current = current.cause;
  }
  const cause = databaseErrorCause(error);
  if (cause) lines.push(`PostgreSQL: ${cause}`);
  return lines.join("\n");
}
