/**
 * The operator's command line: `npm run markbook -- <command> [options]`. Works on the database the
 * configuration names (DATABASE_URL, else the embedded one in DATA_DIR), with service rights, one
 * transaction per command. Prints only the result on stdout; messages go to stderr.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { eq } from "drizzle-orm";
import { ZodError } from "zod";
import { signUserToken } from "../server/auth/tokens";
import { createClass } from "../server/classroom/classes";
import { enrollStudent } from "../server/classroom/enrollments";
import type { Db, Tx } from "../server/db/client";
import { DataDirLockedError } from "../server/db/data-dir-lock";
import { MigrationAbortedError, latestMigration } from "../server/db/migrate";
import { asService } from "../server/db/rls";
import { institutes } from "../server/db/schema";
import { ConfigError, env } from "../server/env";
import { AppError } from "../server/errors";
import { createApiKey, listApiKeys, revokeApiKey } from "../server/identity/api-keys";
import { createInstitute } from "../server/identity/institutes";
import { type Role, createUser, findUserByEmail, roles, setUserActive } from "../server/identity/users";
import { applyRosterImportInto } from "../server/identity/roster-apply";
import { parseMappingParameter, rosterLimits } from "../server/identity/roster-import";
import { planRosterImportInto } from "../server/identity/roster-plan";
import { importTooLarge, readRosterSource } from "../server/identity/roster-source";
import { describeRosterImport } from "../server/identity/roster-summary";
import { logger } from "../server/logger";
import { openConfiguredDatabase } from "../server/startup";

const optionSpec = {
  name: { type: "string" },
  email: { type: "string" },
  password: { type: "string" },
  institute: { type: "string" },
  role: { type: "string" },
  "ttl-seconds": { type: "string" },
  class: { type: "string" },
  "teacher-email": { type: "string" },
  id: { type: "string" },
  mapping: { type: "string" },
  "dry-run": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

type OptionName = Exclude<keyof typeof optionSpec, "help">;
type Options = Partial<Record<OptionName, string>>;

interface Command {
  usage: string;
  summary: string;
  required: OptionName[];
  optional?: OptionName[];
  /** The one positional argument the command takes after its name (a file), as its usage names it. */
  argument?: string;
  run(db: Db, options: Options, argument?: string): Promise<string>;
}

/** Runs `fn` in one service transaction: a command writes everything or nothing. */
const inTransaction =
  (fn: (tx: Tx, options: Options) => Promise<string>) =>
  (db: Db, options: Options): Promise<string> =>
    asService(db, (tx) => fn(tx, options));

async function userByEmail(tx: Tx, email: string, flag: string) {
  const user = await findUserByEmail(tx, email);
  if (!user) throw new CliError(`${flag}: no user with email ${email}`);
  return user;
}

async function findInstitute(tx: Tx, id: string) {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw new CliError(`--institute ${id}: must be an institute id`);
  const [institute] = await tx.select({ id: institutes.id }).from(institutes).where(eq(institutes.id, id));
  if (!institute) throw new CliError(`--institute ${id}: no institute with this id`);
}

const commands: Record<string, Command> = {
  "institute create": {
    usage: "institute create --name NAME",
    summary: "create an institute (a school); prints its id",
    required: ["name"],
    run: inTransaction(async (tx, o) => (await createInstitute(tx, { name: o.name! })).id),
  },
  "user create": {
    usage: "user create --email EMAIL --password PASSWORD --name FULL_NAME [--institute ID --role ROLE]",
    summary: `create a user and their membership (ROLE: ${roles.join(", ")}); prints the user id`,
    required: ["email", "password", "name"],
    optional: ["institute", "role"],
    run: inTransaction(async (tx, o) => {
      const user = await createUser(tx, {
        email: o.email!,
        password: o.password!,
        fullName: o.name!,
        instituteId: o.institute,
        role: o.role as Role | undefined,
      });
      return user.id;
    }),
  },
  "user deactivate": {
    usage: "user deactivate --email EMAIL",
    summary: "deactivate a user: they cannot sign in, and their sessions, tokens and dictation keys stop working at once; prints the user id",
    required: ["email"],
    run: inTransaction(async (tx, o) => (await setUserActive(tx, { userId: (await userByEmail(tx, o.email!, "--email")).id, active: false })).id),
  },
  "user reactivate": {
    usage: "user reactivate --email EMAIL",
    summary: "make a deactivated user active again; prints the user id",
    required: ["email"],
    run: inTransaction(async (tx, o) => (await setUserActive(tx, { userId: (await userByEmail(tx, o.email!, "--email")).id, active: true })).id),
  },
  token: {
    usage: "token --email EMAIL [--ttl-seconds SECONDS]",
    summary: "print a signed user token (Bearer) for that user",
    required: ["email"],
    optional: ["ttl-seconds"],
    run: inTransaction(async (tx, o) => {
      const ttlSeconds = o["ttl-seconds"] === undefined ? env().AUTH_TOKEN_TTL_SECONDS : Number(o["ttl-seconds"]);
      if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > 366 * 24 * 3600) {
        throw new CliError("--ttl-seconds: must be a whole number of seconds, from 1 to 31622400 (366 days)");
      }
      const user = await userByEmail(tx, o.email!, "--email");
      return signUserToken({ userId: user.id, ttlSeconds });
    }),
  },
  "api-key create": {
    usage: "api-key create --name NAME [--institute ID]",
    summary:
      "create a speech API key (/v1) of the installation, or of an institute (its school admins see and revoke it in Settings); prints the key, which is shown only this once",
    required: ["name"],
    optional: ["institute"],
    run: inTransaction(async (tx, o) => (await createApiKey(tx, { name: o.name!, instituteId: o.institute })).key),
  },
  "api-key list": {
    usage: "api-key list [--institute ID]",
    summary: "list the speech API keys (every one, or an institute's), one per line: id, shown prefix, state, owner (installation or the institute id), name",
    required: [],
    optional: ["institute"],
    run: inTransaction(async (tx, o) =>
      (await listApiKeys(tx, { instituteId: o.institute }))
        .map((key) => [key.id, key.prefix, key.revoked_at ? "revoked" : "active", key.institute_id ?? "installation", key.name].join("\t"))
        .join("\n"),
    ),
  },
  "api-key revoke": {
    usage: "api-key revoke --id ID",
    summary: "revoke a speech API key, the installation's or an institute's (it stops working at once); prints its id",
    required: ["id"],
    run: inTransaction(async (tx, o) => (await revokeApiKey(tx, { id: o.id! })).id),
  },
  "class create": {
    usage: "class create --institute ID --name NAME [--teacher-email EMAIL]",
    summary: "create a class, optionally with its teacher; prints the class id",
    required: ["institute", "name"],
    optional: ["teacher-email"],
    run: inTransaction(async (tx, o) => {
      const teacher = o["teacher-email"] ? await userByEmail(tx, o["teacher-email"], "--teacher-email") : null;
      const created = await createClass(tx, { instituteId: o.institute!, name: o.name!, teacherId: teacher?.id });
      return created.id;
    }),
  },
  enroll: {
    usage: "enroll --class ID --email EMAIL",
    summary: "enroll a student of the class's institute in the class (again active if they left); prints the student id",
    required: ["class", "email"],
    run: inTransaction(async (tx, o) => {
      const student = await userByEmail(tx, o.email!, "--email");
      await enrollStudent(tx, { classId: o.class!, studentId: student.id });
      return student.id;
    }),
  },
  "user import": {
    usage: "user import --institute ID FILE [--dry-run] [--mapping JSON]",
    summary:
      "import people, classes and enrollments from a school export's CSV (columns guessed from the header, or --mapping) or a OneRoster 1.1 zip; prints the summary (created, updated, unchanged, skipped with reasons). --dry-run writes nothing",
    required: ["institute"],
    optional: ["dry-run", "mapping"],
    argument: "FILE",
    run: async (db, o, file) => {
      const limits = rosterLimits();
      let bytes: Uint8Array;
      try {
        // The size first: a file over the limit (a wrong path to a disk image, say) is never read into memory.
        if (fs.statSync(file!).size > limits.maxBytes) throw importTooLarge(limits.maxBytes);
        bytes = new Uint8Array(fs.readFileSync(file!));
      } catch (error) {
        if (error instanceof AppError) throw error;
        throw new CliError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
      }
      const source = await readRosterSource([{ name: path.basename(file!), bytes }], limits);
      const mapping = parseMappingParameter(o.mapping);
      const result = await asService(db, async (tx) => {
        await findInstitute(tx, o.institute!);
        if (o["dry-run"] === "true") return (await planRosterImportInto(tx, o.institute!, source, mapping)).result;
        return applyRosterImportInto(tx, o.institute!, source, mapping);
      });
      return describeRosterImport(result);
    },
  },
  migrate: {
    usage: "migrate",
    summary:
      "bring the database's schema up to date (every command does this first; run it alone before rolling out a new version); one transaction, so a transaction pooler is fine; waiting for another migration, it says so and Ctrl-C stops it; prints the latest migration",
    required: [],
    run: () => Promise.resolve(latestMigration()),
  },
  seed: {
    usage: "seed",
    summary: "seed the demo school (Northfield Academy) if it is absent; prints its institute id",
    required: [],
    run: async (db) => {
      const { seedDemoSchool } = await import("../server/demo/seed"); // pdf-lib: loaded only for this command
      return (await seedDemoSchool(db)).instituteId;
    },
  },
};

/** Domain input names → the flags that carry them, so that messages name what the operator typed. */
const flagOfField: Record<string, string> = {
  name: "--name",
  fullName: "--name",
  email: "--email",
  password: "--password",
  instituteId: "--institute",
  institute: "--institute",
  role: "--role",
  classId: "--class",
  teacherId: "--teacher-email",
  teacher: "--teacher-email",
  studentId: "--email",
  id: "--id",
  student: "--email",
};

class CliError extends Error {}

function helpText(): string {
  return [
    "Usage: npm run markbook -- <command> [options]",
    "",
    "Commands:",
    ...Object.values(commands).flatMap((command) => [`  ${command.usage}`, `      ${command.summary}`]),
    "",
    "The database is the configured one: PostgreSQL when DATABASE_URL is set, else the embedded",
    "database in DATA_DIR (default ./data), which must not be in use by a running server.",
  ].join("\n");
}

function parseCommandLine(argv: string[]) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: optionSpec, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  const { positionals, values } = parsed;
  if (values.help) return { help: true as const };
  const key = [positionals.slice(0, 2).join(" "), positionals[0] ?? ""].find((candidate) => commands[candidate]);
  if (!key) {
    throw new CliError(positionals.length ? `unknown command: ${positionals.join(" ")}` : "no command given");
  }
  const command = commands[key]!;
  const rest = positionals.slice(key.split(" ").length);
  if (command.argument && rest.length !== 1) throw new CliError(`${key}: give one ${command.argument} (usage: ${command.usage})`);
  if (!command.argument && rest.length > 0) throw new CliError(`unexpected argument: ${positionals.at(-1)}`);
  const allowed = new Set<string>([...command.required, ...(command.optional ?? [])]);
  const options: Options = {};
  for (const [name, value] of Object.entries(values)) {
    if (!allowed.has(name)) throw new CliError(`${key}: --${name} is not an option of this command (usage: ${command.usage})`);
    options[name as OptionName] = typeof value === "boolean" ? String(value) : value;
  }
  const missing = command.required.filter((name) => options[name] === undefined);
  if (missing.length > 0) {
    throw new CliError(`${key}: missing ${missing.map((name) => `--${name}`).join(", ")} (usage: ${command.usage})`);
  }
  return { help: false as const, command, options, argument: rest[0] };
}

/** One line for the operator: what went wrong, in the words of the command line. */
function describeError(error: unknown, options: Options = {}): string {
  // "--role teacherx: …": the flag and the value the operator gave.
  const given = (field: string) => {
    const flag = flagOfField[field] ?? field;
    const value = options[flag.replace(/^--/, "") as OptionName];
    return value === undefined || flag === "--password" ? flag : `${flag} ${value}`;
  };
  if (error instanceof CliError || error instanceof ConfigError || error instanceof DataDirLockedError) return error.message;
  if (error instanceof ZodError) {
    const issue = error.issues[0];
    return `${given(String(issue?.path[0] ?? ""))}: ${issue?.message ?? "invalid value"}`;
  }
  if (error instanceof AppError) return error.param ? `${given(error.param)}: ${error.message}` : error.message;
  // A failed query's own message repeats the SQL; the database's reason is in its cause.
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** What `token` says when the server holds the embedded database (the README's curl example meets it). */
const TOKEN_WHILE_SERVER_RUNS =
  "For a token while the server runs, sign in as that user and make a personal access token under Settings (it is a Bearer token " +
  "as this one is); or stop the server, run this command, and start the server again: the token stays valid for its --ttl-seconds.";

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    process.stderr.write(`markbook: ${describeError(error)}\n\n${helpText()}\n`);
    return 1;
  }
  if (parsed.help) {
    process.stdout.write(`${helpText()}\n`);
    return 0;
  }

  // A signal must not cut a write to the embedded database short: finish, close cleanly, then exit. A
  // migration still waiting for another's lock has written nothing: the signal stops the wait.
  let interrupted = false;
  const stopWaiting = new AbortController();
  let waitingForLock = false;
  const onSignal = () => {
    interrupted = true;
    if (waitingForLock) {
      stopWaiting.abort();
      return;
    }
    process.stderr.write("markbook: finishing the current command before exiting…\n");
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  let opened;
  try {
    env(); // a configuration error is reported before anything is opened
    opened = await openConfiguredDatabase("cli", {
      onWait: (wait) => {
        waitingForLock = true;
        process.stderr.write(`markbook: ${wait.message}\n`);
      },
      signal: stopWaiting.signal,
    });
    waitingForLock = false;
    const result = await parsed.command.run(opened.database.db, parsed.options, parsed.argument);
    process.stdout.write(`${result}\n`);
    return interrupted ? 130 : 0;
  } catch (error) {
    if (error instanceof MigrationAbortedError) {
      process.stderr.write(`markbook: ${error.message}\n`);
      return 130;
    }
    const hint = error instanceof DataDirLockedError && error.holder === "server" && parsed.command === commands.token ? ` ${TOKEN_WHILE_SERVER_RUNS}` : "";
    process.stderr.write(`markbook: ${describeError(error, parsed.options)}${hint}\n`);
    logger.debug("markbook command failed", error); // the stack, with LOG_LEVEL=debug
    return 1;
  } finally {
    await opened?.close();
  }
}

const exitCode = await main(process.argv.slice(2));
process.exitCode = exitCode;
// Should a library keep a handle open, do not hang: everything was closed and written already.
setTimeout(() => process.exit(exitCode), 2_000).unref();
