import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { type Db, type Tx, rowsOf } from "../../server/db/client";

/**
 * The current source of every SQL rule (server/db/sql/, see its README.md) set against a migrated
 * database: each file is executed in a transaction that is rolled back, over the live objects it
 * stands for, and what the database then holds is compared with what the migrations left. PostgreSQL
 * prints the definitions back itself (pg_get_functiondef, pg_get_expr, pg_get_triggerdef), so a file
 * may be laid out differently from the migration that defined its object; any change of logic shows.
 */

const sqlSourceFolder = path.resolve(__dirname, "../../server/db/sql");

export function readSource(relativePath: string): string {
  return fs.readFileSync(path.join(sqlSourceFolder, relativePath), "utf8");
}

/** The `.sql` files of a folder of server/db/sql, without their extension. */
export function sourceNames(relativeFolder: string): string[] {
  const folder = path.join(sqlSourceFolder, relativeFolder);
  return fs
    .readdirSync(folder)
    .filter((name) => name.endsWith(".sql"))
    .map((name) => name.slice(0, -".sql".length))
    .sort();
}

/** The sub-folders of a folder of server/db/sql (one per table). */
export function sourceFolders(relativeFolder: string): string[] {
  const folder = path.join(sqlSourceFolder, relativeFolder);
  return fs
    .readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/**
 * The statements of a SQL file, in order, without comments: split at semicolons outside quotes,
 * dollar quotes and comments.
 */
export function sqlStatements(text: string): string[] {
  const statements: string[] = [];
  let current = "";
  let index = 0;
  while (index < text.length) {
    const rest = text.slice(index);
    const lineComment = /^--[^\n]*/.exec(rest);
    const blockComment = /^\/\*[\s\S]*?\*\//.exec(rest);
    const dollarTag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(rest);
    if (lineComment || blockComment) {
      index += (lineComment ?? blockComment)![0].length;
      current += " ";
    } else if (dollarTag) {
      const end = text.indexOf(dollarTag[0], index + dollarTag[0].length);
      if (end < 0) throw new Error(`unterminated dollar quote ${dollarTag[0]}`);
      current += text.slice(index, end + dollarTag[0].length);
      index = end + dollarTag[0].length;
    } else if (rest[0] === "'" || rest[0] === '"') {
      const quote = rest[0];
      let end = index + 1;
      for (;;) {
        end = text.indexOf(quote, end);
        if (end < 0) throw new Error(`unterminated ${quote} quote`);
        if (text[end + 1] === quote) end += 2;
        else break;
      }
      current += text.slice(index, end + 1);
      index = end + 1;
    } else if (rest[0] === ";") {
      if (current.trim()) statements.push(current.trim());
      current = "";
      index += 1;
    } else {
      current += rest[0];
      index += 1;
    }
  }
  if (current.trim()) statements.push(current.trim());
  return statements;
}

class RolledBack extends Error {}

/** Runs `work` in a transaction that is always rolled back, and answers what it answered. */
async function rolledBack<T>(db: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  let result: { value: T } | undefined;
  try {
    await db.transaction(async (tx) => {
      result = { value: await work(tx) };
      throw new RolledBack();
    });
  } catch (error) {
    if (!(error instanceof RolledBack)) throw error;
  }
  return result!.value;
}

async function rows<Row>(tx: Tx, query: string): Promise<Row[]> {
  return rowsOf<Row>(await tx.execute(sql.raw(query)));
}

/** Executes a file's statements; answers the first error's message, or undefined. */
async function executeSource(tx: Tx, text: string): Promise<string | undefined> {
  try {
    for (const statement of sqlStatements(text)) await tx.execute(sql.raw(statement));
    return undefined;
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    return `the file does not execute: ${cause ?? (error as Error).message}`;
  }
}

function quoted(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** Whitespace is not logic: a definition read back with every run of spaces and line breaks as one space. */
function spaced(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * Names and definitions that differ between the database and a file (`file`: its path in
 * server/db/sql), as sentences; empty when they are equal.
 */
function differences(what: string, live: Map<string, string>, fromFile: Map<string, string>, file: string): string[] {
  const found: string[] = [];
  for (const [key, definition] of live) {
    if (!fromFile.has(key)) found.push(`${what} ${key} is in the database but not in server/db/sql/${file}`);
    else if (fromFile.get(key) !== definition)
      found.push(`${what} ${key} differs in server/db/sql/${file}:\n  database: ${definition}\n  file:     ${fromFile.get(key)}`);
  }
  for (const key of fromFile.keys()) if (!live.has(key)) found.push(`${what} ${key} is in server/db/sql/${file} but not in the database`);
  return found;
}

interface FunctionRow {
  signature: string;
  definition: string;
  privileges: string;
}

/** Every function of schema `app` named `name`, keyed by its argument types: definition and privileges. */
async function functionsNamed(tx: Tx, name: string): Promise<Map<string, string>> {
  const found = await rows<FunctionRow>(
    tx,
    `select p.oid::regprocedure::text as signature, pg_get_functiondef(p.oid) as definition,
       (select coalesce(string_agg(
          case when a.grantee = 0 then 'PUBLIC' else a.grantee::regrole::text end || ' ' || a.privilege_type, ', '
          order by case when a.grantee = 0 then 'PUBLIC' else a.grantee::regrole::text end, a.privilege_type), '')
        from aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a) as privileges
     from pg_proc p where p.pronamespace = 'app'::regnamespace and p.proname = ${quoted(name)}`,
  );
  return new Map(found.map((row) => [row.signature, `${spaced(row.definition)} -- may execute: ${row.privileges}`]));
}

/**
 * The functions, procedures and types (other than a table's own row type and arrays) of schemas
 * other than app and PostgreSQL's own: a rule there would have no file.
 */
export async function rulesOutsideApp(db: Db): Promise<string[]> {
  return rolledBack(db, async (tx) =>
    (
      await rows<{ name: string }>(
        tx,
        `select 'function ' || p.oid::regprocedure::text as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace
         where n.nspname not in ('app', 'pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'
           and not exists (select 1 from pg_depend d where d.objid = p.oid and d.deptype = 'e')
         union all
         select 'type ' || t.oid::regtype::text from pg_type t join pg_namespace n on n.oid = t.typnamespace
         where n.nspname not in ('app', 'pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'
           and t.typtype not in ('b', 'p', 'e') and t.typcategory <> 'A'
           and not exists (select 1 from pg_class c where c.oid = t.typrelid and c.relkind <> 'c')
           and not exists (select 1 from pg_depend d where d.objid = t.oid and d.deptype = 'e')
         order by 1`,
      )
    ).map((row) => row.name),
  );
}

/** The names of the functions of schema `app`. */
export async function liveFunctionNames(db: Db): Promise<string[]> {
  return rolledBack(db, async (tx) =>
    (await rows<{ name: string }>(tx, `select distinct proname as name from pg_proc where pronamespace = 'app'::regnamespace order by 1`)).map(
      (row) => row.name,
    ),
  );
}

/**
 * How functions/<name>.sql differs from the database: the live functions named `name` are renamed out
 * of the way, the file (CREATE FUNCTION and its GRANT and REVOKE statements) creates them anew, and the
 * two sets are compared, overload by overload, with who may execute each.
 */
export async function functionDifferences(db: Db, name: string, text: string): Promise<string[]> {
  return rolledBack(db, async (tx) => {
    const live = await functionsNamed(tx, name);
    for (const signature of live.keys()) await tx.execute(sql.raw(`alter function ${signature} rename to ${name}__live`));
    const before = await rows<{ signature: string }>(tx, `select oid::regprocedure::text as signature from pg_proc where pronamespace = 'app'::regnamespace`);
    const failure = await executeSource(tx, text);
    if (failure) return [failure];
    const after = await rows<{ signature: string }>(tx, `select oid::regprocedure::text as signature from pg_proc where pronamespace = 'app'::regnamespace`);
    const known = new Set(before.map((row) => row.signature));
    const strays = after.map((row) => row.signature).filter((signature) => !known.has(signature) && !signature.startsWith(`app.${name}(`));
    const fromFile = await functionsNamed(tx, name);
    return [...strays.map((signature) => `the file creates ${signature}, which is not ${name}`), ...differences("function", live, fromFile, `functions/${name}.sql`)];
  });
}

/** The types of schema `app` (their array types left out), by name: kind and attributes. */
async function typesOfApp(tx: Tx): Promise<Map<string, string>> {
  const found = await rows<{ name: string; definition: string }>(
    tx,
    `select t.typname as name, t.typtype::text || ' (' || coalesce((
       select string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), ', ' order by a.attnum)
       from pg_attribute a where a.attrelid = t.typrelid and a.attnum > 0 and not a.attisdropped), '') || ')' as definition
     from pg_type t where t.typnamespace = 'app'::regnamespace and t.typcategory <> 'A'`,
  );
  return new Map(found.map((row) => [row.name, row.definition]));
}

/** The names of the types of schema `app` (their array types left out). */
export async function liveTypeNames(db: Db): Promise<string[]> {
  return rolledBack(db, async (tx) => [...(await typesOfApp(tx)).keys()].sort());
}

/**
 * How types/<name>.sql differs from the database: the live type is renamed out of the way (what uses
 * it keeps it), the file creates it anew, and the two are compared.
 */
export async function typeDifferences(db: Db, name: string, text: string): Promise<string[]> {
  return rolledBack(db, async (tx) => {
    const before = await typesOfApp(tx);
    const live = new Map([...before].filter(([typeName]) => typeName === name));
    if (live.size > 0) await tx.execute(sql.raw(`alter type app.${name} rename to ${name}__live`));
    const failure = await executeSource(tx, text);
    if (failure) return [failure];
    const created = [...(await typesOfApp(tx))].filter(([typeName]) => typeName === name || !before.has(typeName));
    return differences("type", live, new Map(created.filter(([typeName]) => typeName !== `${name}__live`)), `types/${name}.sql`);
  });
}

interface PolicyRow {
  name: string;
  definition: string;
}

/** The policies of `table`, by name: command, permissive or restrictive, roles, USING and WITH CHECK as PostgreSQL prints them. */
async function policiesOf(tx: Tx, table: string): Promise<Map<string, string>> {
  const found = await rows<PolicyRow>(
    tx,
    `select polname as name,
       concat_ws(' ', 'for', polcmd, case when polpermissive then 'permissive' else 'restrictive' end,
         'to', (select string_agg(case when r = 0 then 'PUBLIC' else r::regrole::text end, ',' order by 1) from unnest(polroles) r),
         'using', coalesce(pg_get_expr(polqual, polrelid), '-'), 'with check', coalesce(pg_get_expr(polwithcheck, polrelid), '-')) as definition
     from pg_policy where polrelid = ${quoted(`public.${table}`)}::regclass`,
  );
  return new Map(found.map((row) => [row.name, spaced(row.definition)]));
}

/** The tables of schema public that have policies. */
export async function tablesWithPolicies(db: Db): Promise<string[]> {
  return rolledBack(db, async (tx) =>
    (
      await rows<{ name: string }>(
        tx,
        `select distinct c.relname as name from pg_policy p join pg_class c on c.oid = p.polrelid
         where c.relnamespace = 'public'::regnamespace order by 1`,
      )
    ).map((row) => row.name),
  );
}

/**
 * How policies/<table>/ differs from the database: every policy of the table is dropped, the folder's
 * files create them anew, and the two sets are compared. `files` maps a file's name to its text.
 */
export async function policyDifferences(db: Db, table: string, files: Map<string, string>): Promise<string[]> {
  return rolledBack(db, async (tx) => {
    const live = await policiesOf(tx, table);
    for (const name of live.keys()) await tx.execute(sql.raw(`drop policy ${name} on ${table}`));
    for (const [, text] of files) {
      const failure = await executeSource(tx, text);
      if (failure) return [failure];
    }
    return differences("policy", live, await policiesOf(tx, table), `policies/${table}/`);
  });
}

/** The triggers of `table` (not PostgreSQL's own, as for foreign keys), by name, as PostgreSQL prints them. */
async function triggersOf(tx: Tx, table: string): Promise<Map<string, string>> {
  const found = await rows<PolicyRow>(
    tx,
    `select tgname as name, pg_get_triggerdef(oid) || ' enabled ' || tgenabled::text as definition
     from pg_trigger where tgrelid = ${quoted(`public.${table}`)}::regclass and not tgisinternal`,
  );
  return new Map(found.map((row) => [row.name, spaced(row.definition)]));
}

/** The tables of schema public that have triggers of their own. */
export async function tablesWithTriggers(db: Db): Promise<string[]> {
  return rolledBack(db, async (tx) =>
    (
      await rows<{ name: string }>(
        tx,
        `select distinct c.relname as name from pg_trigger t join pg_class c on c.oid = t.tgrelid
         where c.relnamespace = 'public'::regnamespace and not t.tgisinternal order by 1`,
      )
    ).map((row) => row.name),
  );
}

/** How triggers/<table>/ differs from the database, as policyDifferences. */
export async function triggerDifferences(db: Db, table: string, files: Map<string, string>): Promise<string[]> {
  return rolledBack(db, async (tx) => {
    const live = await triggersOf(tx, table);
    for (const name of live.keys()) await tx.execute(sql.raw(`drop trigger ${name} on ${table}`));
    for (const [, text] of files) {
      const failure = await executeSource(tx, text);
      if (failure) return [failure];
    }
    return differences("trigger", live, await triggersOf(tx, table), `triggers/${table}/`);
  });
}

/**
 * How row-level-security.sql differs from the database: row-level security is switched off on every
 * table, the file switches it on again, and the two lists of tables are compared.
 */
export async function rowLevelSecurityDifferences(db: Db, text: string): Promise<string[]> {
  return rolledBack(db, async (tx) => {
    const secured = async () =>
      new Map(
        (
          await rows<{ name: string; forced: boolean }>(
            tx,
            `select relname as name, relforcerowsecurity as forced from pg_class
             where relnamespace = 'public'::regnamespace and relrowsecurity`,
          )
        ).map((row) => [row.name, row.forced ? "enabled, forced" : "enabled"]),
      );
    const live = await secured();
    for (const table of live.keys()) await tx.execute(sql.raw(`alter table ${table} disable row level security, no force row level security`));
    const failure = await executeSource(tx, text);
    if (failure) return [failure];
    return differences("row-level security of table", live, await secured(), "row-level-security.sql");
  });
}

/**
 * What markbook_app (and PUBLIC) may do with the tables, their columns, the sequences and the schemas
 * app and public, as one line per object and grantee: `table users to markbook_app` → `SELECT`.
 */
async function grantsOfApp(tx: Tx): Promise<Map<string, string>> {
  const grantee = `case when a.grantee = 0 then 'PUBLIC' else a.grantee::regrole::text end`;
  const found = await rows<{ key: string; privileges: string }>(
    tx,
    `select case c.relkind when 'S' then 'sequence ' else 'table ' end || c.relname || ' to ' || ${grantee} as key,
       string_agg(a.privilege_type, ', ' order by a.privilege_type) as privileges
     from pg_class c, aclexplode(c.relacl) a
     where c.relnamespace = 'public'::regnamespace and (a.grantee = 0 or a.grantee = 'markbook_app'::regrole)
     group by 1
     union all
     select 'column ' || c.relname || '.' || at.attname || ' to ' || ${grantee},
       string_agg(a.privilege_type, ', ' order by a.privilege_type)
     from pg_attribute at join pg_class c on c.oid = at.attrelid, aclexplode(at.attacl) a
     where c.relnamespace = 'public'::regnamespace and (a.grantee = 0 or a.grantee = 'markbook_app'::regrole)
     group by 1
     union all
     select 'schema ' || n.nspname || ' to markbook_app', string_agg(a.privilege_type, ', ' order by a.privilege_type)
     from pg_namespace n, aclexplode(n.nspacl) a
     where n.nspname in ('app', 'public') and a.grantee = 'markbook_app'::regrole
     group by 1`,
  );
  return new Map(found.map((row) => [row.key, row.privileges]));
}

/**
 * How grants.sql differs from the database: every privilege of markbook_app and PUBLIC on the tables,
 * columns and sequences of schema public, and markbook_app's on the schemas, is revoked, the file
 * grants anew, and the two are compared.
 */
export async function grantDifferences(db: Db, text: string): Promise<string[]> {
  return rolledBack(db, async (tx) => {
    const live = await grantsOfApp(tx);
    await tx.execute(sql.raw(`revoke all on all tables in schema public from markbook_app, public`));
    await tx.execute(sql.raw(`revoke all on all sequences in schema public from markbook_app, public`));
    for (const key of live.keys()) {
      const column = /^column (\w+)\.(\w+) to /.exec(key);
      if (column) await tx.execute(sql.raw(`revoke all (${column[2]}) on ${column[1]} from markbook_app, public`));
    }
    await tx.execute(sql.raw(`revoke usage on schema app, public from markbook_app`));
    const left = await grantsOfApp(tx);
    if (left.size > 0) return [`could not revoke ${[...left.keys()].join(", ")}`];
    const failure = await executeSource(tx, text);
    if (failure) return [failure];
    return differences("privileges on", live, await grantsOfApp(tx), "grants.sql");
  });
}
