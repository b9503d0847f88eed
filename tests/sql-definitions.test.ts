import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { describeOnEachDatabase } from "./support/database";
import {
  functionDifferences,
  grantDifferences,
  liveFunctionNames,
  liveTypeNames,
  policyDifferences,
  rulesOutsideApp,
  readSource,
  rowLevelSecurityDifferences,
  sourceFolders,
  sourceNames,
  sqlStatements,
  tablesWithPolicies,
  tablesWithTriggers,
  triggerDifferences,
  typeDifferences,
} from "./support/sql-sources";

/**
 * server/db/sql/ holds the current source of every SQL function and type of schema `app`, every
 * row-level security policy and every trigger, one file each, the list of tables under row-level
 * security, and markbook_app's privileges.
 * The migrations (drizzle/) stay append-only; these files say what the migrated database holds now.
 * A migration that redefines a rule must change its file too, and this test fails until both agree.
 */

const functionFiles = sourceNames("functions");
const typeFiles = sourceNames("types");
const policyTables = sourceFolders("policies");
const triggerTables = sourceFolders("triggers");

function folderFiles(folder: string): Map<string, string> {
  return new Map(sourceNames(folder).map((name) => [name, readSource(`${folder}/${name}.sql`)]));
}

describe("server/db/sql files", () => {
  it.each(functionFiles)("functions/%s.sql creates or replaces its function, and grants or revokes only on it", (name) => {
    for (const statement of sqlStatements(readSource(`functions/${name}.sql`))) {
      expect(statement).toMatch(
        new RegExp(`^(CREATE OR REPLACE FUNCTION app\\.${name}\\(|(GRANT|REVOKE) [A-Z ]+ ON FUNCTION app\\.${name}\\()`),
      );
    }
  });

  it.each(typeFiles)("types/%s.sql holds one CREATE TYPE, named as its file", (name) => {
    const statements = sqlStatements(readSource(`types/${name}.sql`));
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(new RegExp(`^CREATE TYPE app\\.${name} `));
  });

  it.each(policyTables)("policies/%s/ holds one CREATE POLICY per file, on its table, named as its file", (table) => {
    for (const [name, text] of folderFiles(`policies/${table}`)) {
      const statements = sqlStatements(text);
      expect(statements).toHaveLength(1);
      expect(statements[0]).toMatch(new RegExp(`^CREATE POLICY ${name} ON ${table} `));
    }
  });

  it.each(triggerTables)("triggers/%s/ holds one CREATE TRIGGER per file, on its table, named as its file", (table) => {
    for (const [name, text] of folderFiles(`triggers/${table}`)) {
      const statements = sqlStatements(text);
      expect(statements).toHaveLength(1);
      expect(statements[0]).toMatch(new RegExp(`^CREATE TRIGGER ${name} [A-Z ,_a-z]* ON ${table}\\s`));
    }
  });

  it("every file begins with a comment saying what its rule is for", () => {
    const files = [
      ...functionFiles.map((name) => `functions/${name}.sql`),
      ...typeFiles.map((name) => `types/${name}.sql`),
      ...policyTables.flatMap((table) => sourceNames(`policies/${table}`).map((name) => `policies/${table}/${name}.sql`)),
      ...triggerTables.flatMap((table) => sourceNames(`triggers/${table}`).map((name) => `triggers/${table}/${name}.sql`)),
      "row-level-security.sql",
      "grants.sql",
    ];
    for (const file of files) expect(readSource(file), file).toMatch(/^-- \S/);
  });

  it("splits any statements at their own semicolons only, whatever their quotes and comments hold", () => {
    // Text that may hold semicolons, quotes, dashes and dollars, but no line break (a comment ends at one).
    const text = fc.stringMatching(/^[a-z ;'"$*/-]{0,12}$/);
    const piece = fc.oneof(
      fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/),
      text.map((inside) => `'${inside.replaceAll("'", "''")}'`),
      text.map((inside) => `"${inside.replaceAll('"', '""')}"`),
      text.filter((inside) => !inside.includes("$body$")).map((inside) => `$body$${inside}$body$`),
      text.filter((inside) => !inside.includes("$$")).map((inside) => `$$${inside}$$`),
    );
    const statement = fc.array(piece, { minLength: 1, maxLength: 6 }).map((pieces) => pieces.join(" "));
    const comment = fc.oneof(text.map((inside) => `-- ${inside}\n`), text.filter((inside) => !inside.includes("*/")).map((inside) => `/* ${inside} */ `));
    fc.assert(
      fc.property(fc.array(fc.tuple(comment, statement), { minLength: 1, maxLength: 5 }), (parts) => {
        const file = parts.map(([before, body]) => `${before}${body};\n`).join("");
        expect(sqlStatements(file)).toEqual(parts.map(([, body]) => body));
      }),
    );
  });

  it("splits statements at semicolons outside quotes, dollar quotes and comments", () => {
    expect(
      sqlStatements(`-- a comment; not a statement
        CREATE FUNCTION f() RETURNS text LANGUAGE sql AS $$ SELECT 'a;b' $$;
        /* another; */ SELECT 'it''s; one', "odd;name" FROM t; SELECT $x$ ; $y$ $x$`),
    ).toEqual([
      "CREATE FUNCTION f() RETURNS text LANGUAGE sql AS $$ SELECT 'a;b' $$",
      `SELECT 'it''s; one', "odd;name" FROM t`,
      "SELECT $x$ ; $y$ $x$",
    ]);
  });
});

describeOnEachDatabase("SQL rules: the files equal the migrated database", (database) => {
  it("there is a file for every function of schema app, and a function for every file", async () => {
    expect(functionFiles).toEqual(await liveFunctionNames(database().db));
  });

  it("no function or type lives outside schema app, where it would have no file", async () => {
    expect(await rulesOutsideApp(database().db)).toEqual([]);
  });

  it("there is a file for every type of schema app, and a type for every file", async () => {
    expect(typeFiles).toEqual(await liveTypeNames(database().db));
  });

  it("there is a folder for every table with policies, and policies for every folder", async () => {
    expect(policyTables).toEqual(await tablesWithPolicies(database().db));
  });

  it("there is a folder for every table with triggers, and triggers for every folder", async () => {
    expect(triggerTables).toEqual(await tablesWithTriggers(database().db));
  });

  it.each(functionFiles)("functions/%s.sql is its function as migrated, with the same privileges", async (name) => {
    expect(await functionDifferences(database().db, name, readSource(`functions/${name}.sql`))).toEqual([]);
  });

  it.each(typeFiles)("types/%s.sql is its type as migrated", async (name) => {
    expect(await typeDifferences(database().db, name, readSource(`types/${name}.sql`))).toEqual([]);
  });

  it.each(policyTables)("policies/%s/ are the table's policies as migrated", async (table) => {
    expect(await policyDifferences(database().db, table, folderFiles(`policies/${table}`))).toEqual([]);
  });

  it.each(triggerTables)("triggers/%s/ are the table's triggers as migrated", async (table) => {
    expect(await triggerDifferences(database().db, table, folderFiles(`triggers/${table}`))).toEqual([]);
  });

  it("row-level-security.sql lists the tables under row-level security as migrated", async () => {
    expect(await rowLevelSecurityDifferences(database().db, readSource("row-level-security.sql"))).toEqual([]);
  });

  it("grants.sql is what markbook_app may attempt on tables, columns and schemas as migrated", async () => {
    expect(await grantDifferences(database().db, readSource("grants.sql"))).toEqual([]);
  });

  // The comparison sees logic, not layout: each of these changes one rule's meaning in a file's text
  // and must be reported, while laying a file out again must not.
  describe("a file that says something else is reported", () => {
    it("a function's body", async () => {
      const text = readSource("functions/mark_write_refusal.sql").replace("RETURN 'claimed';", "RETURN 'taken';");
      expect(await functionDifferences(database().db, "mark_write_refusal", text)).toEqual([expect.stringContaining("differs")]);
    });

    it("a function's volatility or security", async () => {
      const text = readSource("functions/may_write_batch.sql").replace("STABLE SECURITY DEFINER", "STABLE");
      expect(await functionDifferences(database().db, "may_write_batch", text)).toEqual([expect.stringContaining("differs")]);
    });

    it("who may execute a function", async () => {
      const text = readSource("functions/reply_cache_caller_state.sql").replace(/REVOKE ALL ON FUNCTION[^\n]*\n/, "");
      expect(await functionDifferences(database().db, "reply_cache_caller_state", text)).toEqual([expect.stringContaining("may execute")]);
    });

    it("an overload left out of the file", async () => {
      const text = readSource("functions/user_token_state.sql");
      const threeArguments = text.slice(0, text.indexOf("CREATE OR REPLACE FUNCTION app.user_token_state(token_user_id uuid, token_id uuid) "));
      expect(await functionDifferences(database().db, "user_token_state", threeArguments)).toEqual([
        expect.stringMatching(/^function app\.user_token_state\(uuid,uuid\) is in the database but not in server\/db\/sql\/functions\/user_token_state\.sql/),
      ]);
    });

    it("a policy's expression, command or kind", async () => {
      const files = folderFiles("policies/api_keys");
      const read = files.get("api_keys_admin_read")!;
      for (const changed of [
        read.replace("app.my_admin_institute_ids()", "app.my_staff_institute_ids()"),
        read.replace("FOR SELECT", "FOR ALL"),
        read.replace("ON api_keys FOR", "ON api_keys AS RESTRICTIVE FOR"),
      ]) {
        expect(changed).not.toEqual(read);
        const differences = await policyDifferences(database().db, "api_keys", new Map([...files, ["api_keys_admin_read", changed]]));
        expect(differences).toEqual([expect.stringContaining("policy api_keys_admin_read differs")]);
      }
    });

    it("a policy missing from its folder, or one more", async () => {
      const files = folderFiles("policies/users");
      const without = new Map([...files].filter(([name]) => name !== "users_update_self"));
      expect(await policyDifferences(database().db, "users", without)).toEqual([
        "policy users_update_self is in the database but not in server/db/sql/policies/users/",
      ]);
      const extra = `CREATE POLICY users_read_all ON users FOR SELECT TO markbook_app USING (true);`;
      expect(await policyDifferences(database().db, "users", new Map([...files, ["users_read_all", extra]]))).toEqual([
        "policy users_read_all is in server/db/sql/policies/users/ but not in the database",
      ]);
    });

    it("a trigger's condition", async () => {
      const files = folderFiles("triggers/exam_submissions");
      const changed = files.get("exam_submissions_clear_absence")!.replace("WHEN (NEW.absence_marked_at IS NOT NULL)", "");
      const differences = await triggerDifferences(database().db, "exam_submissions", new Map([...files, ["exam_submissions_clear_absence", changed]]));
      expect(differences).toEqual([expect.stringContaining("trigger exam_submissions_clear_absence differs")]);
    });

    it("a type's attributes", async () => {
      const text = readSource("types/progress_counts.sql").replace("confirmed int", "confirmed bigint");
      expect(await typeDifferences(database().db, "progress_counts", text)).toEqual([expect.stringContaining("type progress_counts differs")]);
    });

    it("a table left out of row-level-security.sql", async () => {
      const text = readSource("row-level-security.sql").replace("ALTER TABLE sign_in_failures ENABLE ROW LEVEL SECURITY;\n", "");
      expect(await rowLevelSecurityDifferences(database().db, text)).toEqual([
        "row-level security of table sign_in_failures is in the database but not in server/db/sql/row-level-security.sql",
      ]);
    });

    it("a privilege more or less", async () => {
      const text = readSource("grants.sql");
      const more = text.replace("GRANT SELECT ON exam_mark_rescores TO", "GRANT SELECT, DELETE ON exam_mark_rescores TO");
      expect(await grantDifferences(database().db, more)).toEqual([expect.stringContaining("privileges on table exam_mark_rescores to markbook_app differs")]);
      const fewer = text.replace("GRANT UPDATE (revoked_at) ON api_keys TO markbook_app;\n", "");
      expect(await grantDifferences(database().db, fewer)).toEqual([
        "privileges on column api_keys.revoked_at to markbook_app is in the database but not in server/db/sql/grants.sql",
      ]);
    });

    it("a file that does not execute", async () => {
      const text = readSource("functions/rubric_clamp.sql").replace("LANGUAGE sql", "LANGUAGE no_such_language");
      expect(await functionDifferences(database().db, "rubric_clamp", text)).toEqual([expect.stringContaining("does not execute")]);
    });

    it("but not a file laid out again", async () => {
      const text = readSource("functions/mark_write_refusal.sql").replace(/^(--[^\n]*\n)+/, "").replace(/\n {4}/g, "\n\t\t");
      expect(await functionDifferences(database().db, "mark_write_refusal", text)).toEqual([]);
      const policy = readSource("policies/exam_mark_claims/exam_mark_claims_insert.sql").replace(/^(--[^\n]*\n)+/, "").replace(/\s+/g, " ");
      const files = new Map([...folderFiles("policies/exam_mark_claims"), ["exam_mark_claims_insert", policy]]);
      expect(await policyDifferences(database().db, "exam_mark_claims", files)).toEqual([]);
    });
  });
});
