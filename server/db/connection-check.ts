import { sql } from "drizzle-orm";
import { ConfigError } from "../env";
import type { Database } from "./client";
import { postgresErrorCode } from "../postgres-errors";

/** SQLSTATEs of a pooler that hands a connection's prepared statements to another server connection. */
const LOST_PREPARED_STATEMENT = new Set([
  "26000", // invalid_sql_statement_name: prepared statement "…" does not exist
  "42P05", // duplicate_prepared_statement: prepared statement "…" already exists
]);

export const PREPARED_STATEMENTS_LOST =
  "The database connection loses its prepared statements: DATABASE_URL goes through a transaction pooler that does not keep them " +
  "(PgBouncer before 1.21, or without max_prepared_statements). Set DATABASE_PREPARED_STATEMENTS=off, or set max_prepared_statements " +
  "in the pooler (PgBouncer 1.21 or later) and restart it.";

/**
 * Checks at start that the database connection behaves as configured. With named prepared statements
 * (DATABASE_PREPARED_STATEMENTS=on), the same prepared statement is run in several rounds of concurrent
 * transactions, as traffic does: through a transaction pooler that does not keep prepared statements, a
 * connection's later transaction lands on a server connection that never saw its statement and fails
 * with `prepared statement "…" does not exist`. That failure is turned into a sentence naming the
 * setting, so that Markbook refuses to start instead of failing under its first concurrent traffic.
 */
export async function checkDatabaseConnection(database: Database, options: { concurrency: number }): Promise<void> {
  if (database.kind !== "postgres" || database.preparedStatements === false) return;
  const concurrency = Math.max(2, Math.min(options.concurrency, 8));
  for (let round = 0; round < 4; round += 1) {
    const results = await Promise.allSettled(
      Array.from({ length: concurrency }, (_, index) =>
        database.db.transaction(async (tx) => {
          await tx.execute(sql`select ${round * concurrency + index}::int as markbook_connection_check`);
          await tx.execute(sql`select ${index}::int as markbook_connection_check`);
        }),
      ),
    );
    const failures = results.flatMap((result) => (result.status === "rejected" ? [result.reason as unknown] : []));
    if (failures.some(lostPreparedStatement)) throw new ConfigError(PREPARED_STATEMENTS_LOST);
    if (failures.length > 0) throw failures[0];
  }
}

function lostPreparedStatement(error: unknown): boolean {
  const code = postgresErrorCode(error);
  if (code && LOST_PREPARED_STATEMENT.has(code)) return true;
  // A statement of the failed transaction reports the abort (25P02), its first error being the pooler's.
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth += 1) {
    if (/prepared statement ".*" (does not exist|already exists)/.test(String((current as Error).message))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
