import { type Placeholder, sql } from "drizzle-orm";
import { schoolAdminRoles, staffRoles, timetableManagerRoles } from "../../lib/rules/roles";
import { type Db, type Rows, type Statement, type TransactionPreamble, type Tx, beginWithPreamble, statementTemplate, transactionInOneTrip } from "./client";

/** The role user-facing queries run as: not a superuser, not an owner, no BYPASSRLS. */
const APP_ROLE = "markbook_app";

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The caller's identity, scope and role for one transaction; set_config('role', …, true) is SET LOCAL
 * ROLE, the last thing it does. The scope is the institutes of the caller's memberships per group of
 * roles, read here once (as the service, before the role changes) for the policies' scope functions
 * (app.my_*_institute_ids, server/db/sql/functions/): as the memberships stood when the transaction began.
 */
const callerSettings = (userId: string | Placeholder) => sql`select set_config('app.user_id', ${userId}, true),
    set_config('app.scope_user_id', ${userId}, true),
    set_config('app.institute_ids', scope.institute_ids, true),
    set_config('app.staff_institute_ids', scope.staff_institute_ids, true),
    set_config('app.admin_institute_ids', scope.admin_institute_ids, true),
    set_config('app.timetable_manager_institute_ids', scope.timetable_manager_institute_ids, true),
    set_config('role', ${APP_ROLE}, true)
  from (select ${institutesWith()} as institute_ids,
      ${institutesWith(...staffRoles)} as staff_institute_ids,
      ${institutesWith(...schoolAdminRoles)} as admin_institute_ids,
      ${institutesWith(...timetableManagerRoles)} as timetable_manager_institute_ids
    from institute_memberships where user_id = ${userId}::uuid) as scope`;

const callerSettingsStatement = statementTemplate(callerSettings(sql.placeholder("userId")));

/** Institutes (an array literal, '{}' for none) of the memberships aggregated, with one of `roles` if given. */
function institutesWith(...roles: string[]) {
  const filter = roles.length > 0 ? sql.raw(` filter (where role in (${roles.map((role) => `'${role}'`).join(", ")}))`) : sql``;
  return sql`coalesce((array_agg(distinct institute_id)${filter})::text, '{}')`;
}

/**
 * Runs `fn` in one transaction as the calling user: row-level security decides what it sees.
 * The user id is a bound parameter of a transaction-local setting, so it cannot leak to another
 * transaction on a pooled connection.
 */
export async function asUser<T>(db: Db, userId: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
  if (!uuidShape.test(userId)) throw new Error("asUser needs a user id (uuid)");
  // On PostgreSQL the driver sends the settings pipelined behind BEGIN (server/db/client.ts); PGlite
  // runs them here.
  const settings = callerSettingsStatement({ userId });
  const preamble: TransactionPreamble = { text: settings.sql, parameters: settings.params as string[], sent: false };
  return beginWithPreamble(preamble, () =>
    db.transaction(async (tx) => {
      if (!preamble.sent) await tx.execute(callerSettings(userId));
      return fn(tx);
    }),
  );
}

/** Statements to run as one user (asUsersInOneTrip). */
export interface UserStatements {
  userId: string;
  statements: Statement[];
}

/**
 * Runs `asService` (statements with the service's own rights, such as taking locks) and then each
 * part's statements as its user, all in one transaction sent in one round trip (transactionInOneTrip),
 * and returns the rows of each part's statements. Each part after the first starts as the service
 * again (so that its user's scope is read from every membership, not through the previous user's
 * policies) and then takes its user's settings and role. Each statement that reads or writes user data
 * must also check `isRunningAs` its user: were BEGIN ever to fail, the statements sent behind it would
 * run outside the transaction, without the settings, and the check makes them match nothing.
 */
export async function asUsersInOneTrip(db: Db, parts: UserStatements[], asService: Statement[] = []): Promise<Rows[][]> {
  const statements: Statement[] = [serviceRole, ...asService];
  const firstOfPart: number[] = [];
  parts.forEach((part, index) => {
    if (!uuidShape.test(part.userId)) throw new Error("asUsersInOneTrip needs user ids (uuid)");
    if (index > 0) statements.push(serviceRole);
    statements.push(callerSettingsStatement({ userId: part.userId }));
    firstOfPart.push(statements.length);
    statements.push(...part.statements);
  });
  const results = await transactionInOneTrip(db, statements);
  return parts.map((part, index) => results.slice(firstOfPart[index], firstOfPart[index]! + part.statements.length));
}

/**
 * SET LOCAL ROLE NONE: back to the connection's own role, the service. And generic plans: the
 * statements sent this way are a few hot ones whose best plan does not depend on their parameters, and
 * once the tables have statistics PostgreSQL judged a custom plan cheaper and planned them again at
 * every execution (measured: 43 % of its CPU per mark save, half its throughput).
 */
const serviceRole: Statement = { sql: "select set_config('role', 'none', true), set_config('plan_cache_mode', 'force_generic_plan', true)", params: [] };

/** True in a statement run by asUser or asUsersInOneTrip for `userId`, false anywhere else. */
export const isRunningAs = (userId: string | Placeholder) => sql`(app.current_user_id() = ${userId}::uuid)`;

/**
 * Runs `fn` in one transaction with the service's own rights, bypassing row-level security.
 * Only for the contract's named exceptions (docs/spec/classroom-api.md "What the service does", data access model):
 * resolving exam_code from the catalogue, resolving student
 * names when a batch is created, storing scans, writing graph projections; plus migrations, seeding,
 * the CLI and credential checks (sign-in, API keys). `grep -rn asService server app` lists them all.
 */
export async function asService<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(fn);
}
