import "#server-only";
import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { type SQL, fillPlaceholders } from "drizzle-orm";
import { type PgDatabase, PgDialect, type PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { env } from "../env";
import * as schema from "./schema";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
/** A transaction handle: what every domain function receives. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface Database {
  kind: "pglite" | "postgres";
  db: Db;
  /** PostgreSQL's connection URL (a migration opens a connection of its own with it). */
  url?: string;
  /** PostgreSQL: whether statements are named prepared statements (DATABASE_PREPARED_STATEMENTS). */
  preparedStatements?: boolean;
  close(): Promise<void>;
}

export type DatabaseOptions =
  | { kind: "pglite"; dataDir?: string; loadDataDir?: Blob }
  | {
      kind: "postgres";
      url: string;
      poolMax?: number;
      /**
       * Named prepared statements (default true). Off for a transaction pooler that does not keep them
       * (PgBouncer before 1.21, or without max_prepared_statements): every statement is then unnamed.
       */
      preparedStatements?: boolean;
      /** A query not answered in this time is cancelled and fails (default 60 s; 0: no limit, for migrations). */
      queryTimeoutMs?: number;
      /** Called with every statement sent (benchmarks count them). */
      onStatement?: (query: string) => void;
    };

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.kind === "pglite") {
    if (options.dataDir) fs.mkdirSync(options.dataDir, { recursive: true });
    const client = await PGlite.create(options.dataDir, options.loadDataDir ? { loadDataDir: options.loadDataDir } : {});
    const db = drizzlePglite({ client, schema }) as unknown as Db;
    return { kind: "pglite", db, close: () => client.close() };
  }
  const prepare = options.preparedStatements ?? true;
  const client = postgres(options.url, {
    max: options.poolMax ?? 10,
    prepare,
    onnotice: () => {}, // "already exists, skipping" notices from idempotent migrations are noise
    ...(options.onStatement && { debug: (_connection: number, query: string) => options.onStatement!(query) }),
  });
  const behaviour: ClientBehaviour = { prepare, timeoutMs: options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS };
  const db = drizzlePostgres({ client: preparingClient(client, behaviour), schema }) as unknown as Db;
  return { kind: "postgres", db, url: options.url, preparedStatements: prepare, close: () => client.end({ timeout: 5 }) };
}

const DEFAULT_QUERY_TIMEOUT_MS = 60_000;

interface ClientBehaviour {
  prepare: boolean;
  timeoutMs: number;
}

/** A query the client gave up on: it was not answered within the configured time, and was cancelled. */
export class QueryTimeoutError extends Error {
  readonly code = "57014"; // query_canceled, as PostgreSQL's own statement_timeout reports it
  constructor(timeoutMs: number) {
    super(
      `The database did not answer within ${timeoutMs / 1000} s (DATABASE_QUERY_TIMEOUT_SECONDS), so the query was cancelled. ` +
        "The database or its connection pooler may be overloaded or unreachable.",
    );
    this.name = "QueryTimeoutError";
  }
}

/**
 * Gives `query` a deadline from the moment it is awaited (waiting for a pooled connection included): past
 * it, PostgreSQL is asked to cancel it and the caller gets a QueryTimeoutError at once, even should the
 * cancel itself never be answered (a pooler that lost the server). postgres.js queries are lazy promises
 * whose `then` starts them, so the deadline is armed there, once.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any row shape: the deadline does not read the rows
function withDeadline<Q extends postgres.PendingQuery<any>>(query: Q, timeoutMs: number): Q {
  if (timeoutMs <= 0) return query;
  const originalThen = query.then.bind(query);
  let settled: Promise<unknown> | undefined;
  query.then = function (this: Q, onFulfilled, onRejected) {
    settled ??= new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        query.cancel();
        reject(new QueryTimeoutError(timeoutMs));
      }, timeoutMs);
      void originalThen(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the driver's own error, passed on as it is
          reject(error);
        },
      );
    });
    return settled.then(onFulfilled as never, onRejected);
  } as Q["then"];
  return query;
}

/** A statement to run first in a transaction (see asUser). */
export interface TransactionPreamble {
  text: string;
  parameters: string[];
  /** Set by the driver when it sent the statement itself, pipelined behind BEGIN. */
  sent: boolean;
}

let pendingPreamble: TransactionPreamble | undefined;

/**
 * Calls `begin` (which starts one transaction) with `preamble` offered to the driver. drizzle asks
 * postgres.js for the transaction synchronously inside `begin`, so a module variable set for that call
 * reaches it without AsyncLocalStorage (whose promise hooks cost 12–16 % of Node CPU per request on
 * Node 20). Should the driver not take it (PGlite; another call path), `preamble.sent` stays false and
 * the caller runs the statement itself.
 */
export function beginWithPreamble<T>(preamble: TransactionPreamble, begin: () => T): T {
  pendingPreamble = preamble;
  try {
    return begin();
  } finally {
    pendingPreamble = undefined;
  }
}

/**
 * drizzle asks postgres.js not to prepare its queries (unless each is given a name by hand). Under
 * row-level security, planning is most of what a statement costs: every policy adds subqueries to the
 * plan. Measured with pgbench on the mark upsert: 530 transactions/s unprepared, 1680/s prepared. This
 * wrapper makes every parameterised query a prepared statement (unless DATABASE_PREPARED_STATEMENTS=off,
 * for a transaction pooler that does not keep them: then every statement is unnamed, planned each time),
 * which postgres.js keeps per connection by its text, so a hot statement is planned once per connection. PostgreSQL re-plans it by itself after
 * a schema change, or when the role differs (RLS as the caller vs the service's own rights).
 *
 * It also sends a transaction's preamble (the caller's identity and role) the moment the transaction has
 * its connection, without waiting for the answer: the first query of the transaction follows it on the
 * same connection, in order, so one round trip per transaction is saved. Should the preamble fail, the
 * transaction is aborted and every later statement of it fails: nothing runs without it.
 *
 * Every query gets a deadline (withDeadline): a client-side timeout, because a statement_timeout given as
 * a startup parameter is refused by PgBouncer, and a `SET` per transaction would cost a statement.
 */
function preparingClient(client: postgres.Sql, behaviour: ClientBehaviour): postgres.Sql {
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === "unsafe") {
        return (query: string, parameters?: postgres.ParameterOrJSON<never>[], options?: postgres.UnsafeQueryOptions) =>
          withDeadline(target.unsafe(query, parameters, { ...options, prepare: behaviour.prepare }), behaviour.timeoutMs);
      }
      // A reserved connection (transactionInOneTrip) is given the same behaviour.
      if (property === "reserve") {
        return async () => preparingClient(await target.reserve(), behaviour);
      }
      // Transactions and savepoints hand out a client of their own: wrap it as well.
      if (property === "begin" || property === "savepoint") {
        return (...args: unknown[]) => {
          const callback = args.pop() as (inner: postgres.Sql) => unknown;
          const start = Reflect.get(target, property, receiver) as (...rest: unknown[]) => Promise<unknown>;
          const preamble = property === "begin" ? pendingPreamble : undefined;
          pendingPreamble = undefined;
          return start.call(target, ...args, (inner: postgres.Sql) => {
            if (preamble && !preamble.sent) {
              // Handed to the connection now, before the callback can issue anything.
              void inner.unsafe(preamble.text, preamble.parameters, { prepare: behaviour.prepare }).execute();
              preamble.sent = true;
            }
            return callback(preparingClient(inner, behaviour));
          });
        };
      }
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}

/** A statement as the drivers take it: text with $1… and its parameters. */
export type Statement = { sql: string; params: unknown[] };
export type Rows = Record<string, unknown>[];

const dialect = new PgDialect();

/**
 * A statement whose text is rendered once: its parameters are `sql.placeholder(name)`s, filled at each
 * use. For hot statements, whose SQL would otherwise be built and rendered again at every call.
 */
export function statementTemplate(build: SQL): (values: Record<string, unknown>) => Statement {
  const query = dialect.sqlToQuery(build);
  return (values) => ({ sql: query.sql, params: fillPlaceholders(query.params, values) });
}

/**
 * Runs `statements` in one transaction and returns each one's rows. On PostgreSQL the whole
 * transaction (BEGIN, the statements, COMMIT) is written to one reserved connection at once and
 * answered in one round trip, where a transaction driven statement by statement waits for each answer:
 * on both sides of the socket the waking and waiting cost more CPU than most statements. PostgreSQL
 * runs them in order; after a failed statement the later ones fail unexecuted and COMMIT rolls back, so
 * nothing of the transaction is kept, and the first error is thrown. For statements that do not depend
 * on each other's answers.
 */
export async function transactionInOneTrip(db: Db, statements: Statement[]): Promise<Rows[]> {
  const client = (db as unknown as { $client: postgres.Sql | PGlite }).$client;
  // Told apart by shape, not instanceof: the Next.js bundles and server.ts may each load their own copy
  // of a driver's module.
  if (!("reserve" in client)) {
    // PGlite, in process: there is no round trip to save.
    return client.transaction(async (tx) => {
      const results: Rows[] = [];
      for (const statement of statements) results.push((await tx.query<Record<string, unknown>>(statement.sql, statement.params)).rows);
      return results;
    });
  }
  // The reserved connection comes wrapped (preparingClient): prepared as configured, each with its deadline.
  const connection = await client.reserve();
  try {
    const queries = [{ sql: "begin", params: [] }, ...statements, { sql: "commit", params: [] }].map((statement) =>
      connection.unsafe(statement.sql, statement.params as postgres.ParameterOrJSON<never>[]).execute(),
    );
    const answers = await Promise.allSettled(queries);
    const failure = answers.find((answer) => answer.status === "rejected");
    if (failure) throw failure.reason;
    return answers.slice(1, -1).map((answer) => (answer as PromiseFulfilledResult<Rows>).value);
  } finally {
    connection.release();
  }
}

/** The database named by the configuration: PostgreSQL when DATABASE_URL is set, else PGlite in DATA_DIR. */
function configuredDatabaseOptions(): DatabaseOptions {
  const config = env();
  return config.DATABASE_URL
    ? {
        kind: "postgres",
        url: config.DATABASE_URL,
        poolMax: config.DATABASE_POOL_MAX,
        preparedStatements: config.DATABASE_PREPARED_STATEMENTS === "on",
        queryTimeoutMs: config.DATABASE_QUERY_TIMEOUT_SECONDS * 1000,
      }
    : { kind: "pglite", dataDir: path.join(config.dataDir, "pglite") };
}

// One database per process, shared between server.ts and the Next.js bundles (which load their own
// copies of this module), hence a slot on globalThis rather than a module variable.
const slot = globalThis as typeof globalThis & { __markbookDatabase?: Promise<Database> };

export function getDatabase(): Promise<Database> {
  slot.__markbookDatabase ??= openDatabase(configuredDatabaseOptions());
  return slot.__markbookDatabase;
}

/** Makes `database` the process database (the server after migrating; tests with their own database). */
export function useDatabase(database: Database): void {
  slot.__markbookDatabase = Promise.resolve(database);
}

/** Rows of a raw `db.execute(sql…)`: PGlite answers `{ rows }`, postgres.js an array. */
export function rowsOf<Row>(result: unknown): Row[] {
  return Array.isArray(result) ? (result as Row[]) : ((result as { rows: Row[] }).rows ?? []);
}
