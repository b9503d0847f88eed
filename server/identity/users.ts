import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import { text } from "../../lib/rules/input-rules";
import { MIN_PASSWORD_LENGTH, hashPassword } from "../auth/passwords";
import { type Tx, rowsOf } from "../db/client";
import { textArray } from "../db/text-array";
import { institutes, instituteMemberships, users } from "../db/schema";
import { violatedUniqueConstraint } from "../postgres-errors";
import { enqueuePersonalNodes } from "../graph/personal-node";
import { AppError, notFound } from "../errors";

import { roles } from "../../lib/rules/roles";

export { type Role, roles } from "../../lib/rules/roles";

export const createUserInput = z.object({
  email: z.email("email must be an email address").transform((email) => email.toLowerCase()),
  password: text(1024).min(MIN_PASSWORD_LENGTH, `password must have at least ${MIN_PASSWORD_LENGTH} characters`).optional(),
  fullName: text(200).trim().min(1, "name is required"),
  displayName: text(200).trim().min(1).optional(),
  instituteId: z.uuid("institute must be an institute id").optional(),
  role: z.enum(roles).optional(),
  /** A student's year group as the school names it ("Year 10"). */
  yearGroup: text(40).trim().min(1).optional(),
});

/** The one answer to an email that is taken, whoever holds it: never says in which school. */
const EMAIL_IN_USE = "Someone already uses this email address";
export const emailInUse = () => new AppError("conflict", EMAIL_IN_USE, "email");

/** Whether anyone at all (in any school) uses this email: a school admin sees only their own school. */
export async function isEmailInUse(tx: Tx, email: string): Promise<boolean> {
  const rows = rowsOf<{ email: string }>(await tx.execute(sql`select app.emails_in_use(${textArray([email])}) as email`));
  return rows.length > 0;
}

export const userTypeOfRole = { student: "student", teacher: "teacher", department_head: "teacher", school_admin: "staff" } as const;

/**
 * Creates a user, and their membership when an institute is given (that institute becomes their school),
 * and queues their own node in their personal graph (server/graph/personal-node.ts). The command line,
 * the People screen and the demo seed all create users here; a roster import writes its rows in bulk
 * and queues the same job.
 */
export async function createUser(tx: Tx, input: z.input<typeof createUserInput>) {
  const { email, password, fullName, displayName, instituteId, role, yearGroup } = createUserInput.parse(input);
  if (role && !instituteId) throw new AppError("invalid", "A role needs an institute", "institute");
  if (instituteId) {
    const [institute] = await tx.select({ id: institutes.id }).from(institutes).where(eq(institutes.id, instituteId));
    if (!institute) throw notFound("Institute");
  }
  if (await isEmailInUse(tx, email)) throw emailInUse();

  const id = crypto.randomUUID();
  const passwordHash = password ? await hashPassword(password) : null;
  const username = await availableUsername(tx, email);
  const [user] = await insertAnswering409(tx, (savepoint) =>
    savepoint
      .insert(users)
      .values({
        id,
        email,
        password_hash: passwordHash,
        user_type: userTypeOfRole[role ?? "student"],
        username,
        full_name: fullName,
        display_name: displayName ?? fullName.split(/\s+/)[0]!,
        user_db_name: `user-${id.replaceAll("-", "")}`,
        school_id: instituteId ?? null,
        year_group: yearGroup ?? null,
      })
      .returning(),
  );
  if (instituteId) {
    await tx.insert(instituteMemberships).values({ institute_id: instituteId, user_id: id, role: role ?? "student" });
  }
  // Their own node in their personal graph, written by a job once this transaction commits.
  await enqueuePersonalNodes(tx);
  return user!;
}

/** A concurrent twin that took the email first is the same 409 (a savepoint keeps the transaction usable). */
async function insertAnswering409<T>(tx: Tx, insert: (savepoint: Tx) => Promise<T>): Promise<T> {
  try {
    return await tx.transaction((savepoint) => insert(savepoint));
  } catch (error) {
    if (violatedUniqueConstraint(error) === "users_email_lower_key") throw emailInUse();
    throw error;
  }
}

async function availableUsername(tx: Tx, email: string): Promise<string> {
  return (await availableUsernames(tx, [email]))[0]!;
}

/** The username an email suggests: its local part, in the characters a username allows. */
const usernameBase = (email: string) =>
  email.split("@")[0]!.toLowerCase().replace(/[^a-z0-9._-]/g, "") || "user";

/**
 * Free usernames for these emails, in order: the email's base, else the base with the next free
 * "-<n>". Two emails with one base get different names. Usernames are unique across the installation
 * and an admin sees only their school, so the taken ones come from app.usernames_in_use
 * (server/db/sql/functions/usernames_in_use.sql).
 */
export async function availableUsernames(tx: Tx, emails: readonly string[]): Promise<string[]> {
  const bases = emails.map(usernameBase);
  const unique = [...new Set(bases)];
  const taken = new Set(
    rowsOf<{ username: string }>(
      await tx.execute(sql`select app.usernames_in_use(${textArray(unique)}) as username`),
    ).map((row) => row.username),
  );
  return bases.map((base) => {
    let name = base;
    for (let suffix = 2; taken.has(name); suffix += 1) name = `${base}-${suffix}`;
    taken.add(name);
    return name;
  });
}

export async function findUserByEmail(tx: Tx, email: string) {
  const [user] = await tx.select().from(users).where(sql`lower(${users.email}) = ${email.trim().toLowerCase()}`);
  return user ?? null;
}

/**
 * The user a sign-in name names: the account with that email, else the one account with that username
 * (case aside). Imported pupils often have no email, and their sign-in slip gives the username.
 */
export async function findUserBySignInName(tx: Tx, name: string) {
  const byEmail = await findUserByEmail(tx, name);
  if (byEmail) return byEmail;
  const matches = await tx.select().from(users).where(sql`lower(${users.username}) = ${name.trim().toLowerCase()}`).limit(2);
  // Usernames differing only in case name nobody: the sign-in cannot tell which was meant.
  return matches.length === 1 ? matches[0]! : null;
}

/** The bootstrap profile of the caller (read as the caller: RLS shows them their own row and school). */
export async function getBootstrapProfile(tx: Tx, userId: string) {
  const [profile] = await tx
    .select({
      id: users.id,
      email: users.email,
      user_type: users.user_type,
      username: users.username,
      full_name: users.full_name,
      display_name: users.display_name,
      user_db_name: users.user_db_name,
      school_db_name: institutes.graph_db_name,
      school_id: users.school_id,
    })
    .from(users)
    .leftJoin(institutes, eq(institutes.id, users.school_id))
    .where(eq(users.id, userId));
  if (!profile) throw notFound("User");
  return profile;
}

/** The caller's memberships, for navigation and role checks in the UI. */
async function listMyMemberships(tx: Tx, userId: string) {
  return tx
    .select({ institute_id: instituteMemberships.institute_id, institute_name: institutes.name, role: instituteMemberships.role })
    .from(instituteMemberships)
    .innerJoin(institutes, eq(institutes.id, instituteMemberships.institute_id))
    .where(eq(instituteMemberships.user_id, userId));
}

/** The web app's profile (myProfileOutput): the bootstrap profile and the caller's memberships, in the caller's one transaction. */
export async function getMyProfile(tx: Tx, userId: string) {
  return { ...(await getBootstrapProfile(tx, userId)), memberships: await listMyMemberships(tx, userId) };
}

export const setUserActiveInput = z.object({ userId: z.uuid(), active: z.boolean() });

/**
 * Deactivates a user (or makes them active again): a deactivated user cannot sign in, and their
 * sessions, tokens and dictation keys are refused at their next use (every check reads
 * users.deactivated_at). Their data and memberships stay. The first deactivation date is kept.
 */
export async function setUserActive(tx: Tx, input: z.input<typeof setUserActiveInput>) {
  const { userId, active } = setUserActiveInput.parse(input);
  const [user] = await tx
    .update(users)
    .set({ deactivated_at: active ? null : sql`coalesce(${users.deactivated_at}, now())` })
    .where(eq(users.id, userId))
    .returning({ id: users.id, deactivated_at: users.deactivated_at });
  if (!user) throw notFound("User");
  return user;
}
