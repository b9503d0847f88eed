import { sql } from "drizzle-orm";
import { ConfigError } from "../env";
import { openDatabase, rowsOf } from "./client";

/** The role user-facing queries run as (SET LOCAL ROLE): the first migration creates it and grants it to the migrating role. */
const APP_ROLE = "markbook_app";

/** What an administrator runs once, as a superuser, for a migrating role without CREATEROLE (docs/deploy.md says the same). */
export function administratorSql(migratingRole: string, appRole = APP_ROLE): string {
  return (
    `CREATE ROLE ${appRole} NOLOGIN NOSUPERUSER NOBYPASSRLS NOINHERIT; ` +
    `GRANT ${appRole} TO ${quoteIdentifier(migratingRole)} WITH ADMIN OPTION;`
  );
}

function quoteIdentifier(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

interface RoleFacts {
  user: string;
  superuser: boolean;
  createRole: boolean;
  version: number;
  appRoleExists: boolean;
  member: boolean;
  admin: boolean;
  migrated: boolean;
}

/**
 * Checks, before migrating a PostgreSQL database, that the role of `url` can do what the migrations do
 * with the role markbook_app: create it (CREATEROLE) or, where an administrator created it, grant it to
 * itself (WITH ADMIN OPTION); once migrated, that it is a member (the app switches to it). Fails with a
 * ConfigError naming what is missing and the SQL an administrator runs once.
 */
export async function checkMigratingRole(url: string, appRole = APP_ROLE): Promise<void> {
  const session = await openDatabase({ kind: "postgres", url, poolMax: 1 });
  let facts: RoleFacts;
  try {
    const result = await session.db.execute(sql`
      select current_user as "user", r.rolsuper as "superuser", r.rolcreaterole as "createRole",
        current_setting('server_version_num')::int as "version",
        a.oid is not null as "appRoleExists",
        coalesce(a.oid is not null and pg_has_role(current_user, a.oid, 'MEMBER'), false) as "member",
        coalesce(a.oid is not null and pg_has_role(current_user, a.oid, 'MEMBER WITH ADMIN OPTION'), false) as "admin",
        to_regnamespace('app') is not null as "migrated"
      from pg_roles r left join pg_roles a on a.rolname = ${appRole}
      where r.rolname = current_user`);
    facts = rowsOf<RoleFacts>(result)[0]!;
  } finally {
    await session.close();
  }
  const problem = missingRolePower(facts, appRole);
  if (problem) {
    throw new ConfigError(
      `The database role ${facts.user} cannot run Markbook's migrations: ${problem}. An administrator runs once, as a ` +
        `superuser: ${administratorSql(facts.user, appRole)} (or gives ${facts.user} CREATEROLE). See docs/deploy.md, "The database roles".`,
    );
  }
}

/** What the role lacks, in a sentence's words, or null. */
function missingRolePower(facts: RoleFacts, appRole: string): string | null {
  if (facts.superuser) return null;
  if (facts.migrated) {
    // The first migration has run here: the app only switches to the role, which needs membership.
    return facts.member ? null : `it is not a member of ${appRole}, which every query of a teacher or pupil switches to`;
  }
  if (!facts.appRoleExists) {
    return facts.createRole ? null : `the role ${appRole} does not exist and ${facts.user} may not create it (it has no CREATEROLE)`;
  }
  // PostgreSQL 16 and later: CREATEROLE alone no longer lets a role grant a role it did not create.
  if (facts.admin || (facts.createRole && facts.version < 160000)) return null;
  return `the role ${appRole} exists but ${facts.user} may not grant it to itself (it holds it without ADMIN OPTION)`;
}
