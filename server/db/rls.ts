import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { type Db, type TransactionPreamble, type Tx, beginWithPreamble } from "./client";

/** The role user-facing queries run as: not a superuser, not an owner, no BYPASSRLS. */
export const APP_ROLE = "markbook_app";

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const dialect = new PgDialect();

/** The caller's identity and role for one transaction; set_config('role', …, true) is SET LOCAL ROLE. */
const callerSettings = (userId: string) => sql`select set_config('app.user_id', ${userId}, true), set_config('role', ${APP_ROLE}, true)`;

/**
 * Runs `fn` in one transaction as the calling user: row-level security decides what it sees.
 * The user id is a bound parameter of a transaction-local setting, so it cannot leak to another
 * transaction on a pooled connection.
 */
export async function asUser<T>(db: Db, userId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (!uuidShape.test(userId)) throw new Error("asUser needs a user id (uuid)");
  // On PostgreSQL the driver sends the settings pipelined behind BEGIN (server/db/client.ts); PGlite
  // runs them here.
  const settings = callerSettings(userId);
  const query = dialect.sqlToQuery(settings);
  const preamble: TransactionPreamble = { text: query.sql, parameters: query.params as string[], sent: false };
  return beginWithPreamble(preamble, () =>
    db.transaction(async (tx) => {
      if (!preamble.sent) await tx.execute(settings);
      return fn(tx);
    }),
  );
}

/**
 * Runs `fn` in one transaction with the service's own rights, bypassing row-level security.
 * Only for the contract's named exceptions: resolving exam_code from the catalogue, resolving student
 * names when a batch is created, storing scans, writing graph projections; plus migrations, seeding,
 * the CLI and credential checks (sign-in, API keys). `grep -rn asService server app` lists them all.
 */
export async function asService<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(fn);
}
