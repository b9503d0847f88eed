import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { compareNames } from "../../lib/text/names";
import { generateTemporaryPassword, hashPassword } from "../auth/passwords";
import { findCallerSchool } from "./caller-school";
import type { Tx } from "../db/client";
import { env } from "../env";
import { classes, enrollments, institutes, users } from "../db/schema";
import { AppError, notFound } from "../errors";
import { text } from "../../lib/rules/input-rules";
import { isSchoolAdmin } from "../../lib/rules/roles";
import { ONLY_ADMINS } from "./people";

/**
 * Sign-in slips: first passwords for many people at once. An admin chooses a class, a year group or
 * people by id; each person chosen gets a fresh temporary password (only its hash is stored, and they
 * must choose their own at their first sign-in, as after a single reset), printed on a slip with their
 * name, class and sign-in address, to cut out and hand over. By default only people who have no
 * password yet get one; `reissue` replaces the passwords of everyone chosen. Deactivated people and
 * the admin themselves never get a slip.
 */

export const MAX_SLIPS = 300;
const MAX_SELECTED = 1000;
const NO_CLASS = "No class";

export const signInSlipsInput = z
  .object({
    class_id: z.uuid("class_id must be a class id").optional().meta({ description: "The class's active students" }),
    year_group: text(40).trim().min(1, "year_group must not be empty").optional().meta({ description: "The students of this year group (as the import set it, any case)" }),
    user_ids: z
      .array(z.uuid("user_ids must be ids of people"))
      .min(1, "choose at least one person")
      .max(MAX_SELECTED, `choose at most ${MAX_SELECTED} people`)
      .optional()
      .meta({ description: "These people of the school" }),
    reissue: z
      .boolean("reissue must be true or false")
      .default(false)
      .meta({ description: "Also people who have a password: theirs is replaced. Otherwise only people without one get a slip" }),
  })
  .refine((input) => [input.class_id, input.year_group, input.user_ids].filter((choice) => choice !== undefined).length === 1, {
    message: "Choose exactly one of class_id, year_group or user_ids",
  });

interface SignInSlip {
  full_name: string;
  /** The class the slip is sorted under: the chosen class, or the person's first class, or "No class". */
  class_name: string;
  username: string;
  /** What they type on the sign-in page as "Email". */
  email: string;
  temporary_password: string;
}

export interface SignInSlipSheet {
  school_name: string;
  /** Where people sign in: the app's address and /signin. */
  sign_in_address: string;
  slips: SignInSlip[];
}

interface IssuedSlips extends SignInSlipSheet {
  /** People chosen who were left out because they have a password (and `reissue` was not asked for). */
  skipped_with_password: number;
}

interface Candidate {
  id: string;
  full_name: string;
  username: string;
  email: string;
  has_password: boolean;
  class_names: string[];
}

const byClassThenName = new Intl.Collator("en", { sensitivity: "base", numeric: true });

/** The people the input chooses, active and not the caller, with their classes. */
async function chosenPeople(tx: Tx, schoolId: string, callerId: string, input: z.output<typeof signInSlipsInput>): Promise<Candidate[]> {
  const conditions = [eq(users.school_id, schoolId), isNull(users.deactivated_at), sql`${users.id} <> ${callerId}`];
  if (input.class_id !== undefined) {
    const [found] = await tx
      .select({ id: classes.id })
      .from(classes)
      .where(and(eq(classes.id, input.class_id), eq(classes.institute_id, schoolId)));
    if (!found) throw notFound("Class");
    conditions.push(
      sql`exists (select 1 from ${enrollments} e where e.class_id = ${input.class_id} and e.student_id = ${sql.identifier("users")}.${sql.identifier("id")} and e.active)`,
    );
  } else if (input.year_group !== undefined) {
    conditions.push(sql`lower(trim(${users.year_group})) = ${input.year_group.toLowerCase()}`);
  } else {
    const ids = [...new Set(input.user_ids!.map((id) => id.toLowerCase()))];
    const found = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.school_id, schoolId), inArray(users.id, ids)));
    if (found.length !== ids.length) throw notFound("Person");
    conditions.push(inArray(users.id, ids));
  }
  const userId = sql`${sql.identifier("users")}.${sql.identifier("id")}`;
  return tx
    .select({
      id: users.id,
      full_name: users.full_name,
      username: users.username,
      email: users.email,
      has_password: sql<boolean>`${users.password_hash} is not null`,
      class_names: sql<string[]>`coalesce((select array_agg(c.name order by c.name) from ${classes} c
        where c.institute_id = ${schoolId} and exists (select 1 from ${enrollments} e where e.class_id = c.id and e.student_id = ${userId} and e.active)), '{}'::text[])`,
    })
    .from(users)
    .where(and(...conditions));
}

/**
 * Issues the temporary passwords of the people the input chooses and returns their slips, sorted by
 * class then surname (lib/text/names.ts). Runs as the caller (asUser), in the caller's transaction: the
 * PDF is made in the same transaction, so a PDF that fails leaves every password as it was.
 */
async function issueSignInSlips(tx: Tx, callerId: string, input: z.input<typeof signInSlipsInput>, signInAddress: string): Promise<IssuedSlips> {
  const chosen = signInSlipsInput.parse(input);
  const school = await findCallerSchool(tx, callerId);
  if (!school || !isSchoolAdmin(school.roles)) throw new AppError("forbidden", ONLY_ADMINS);
  const schoolId = school.instituteId;
  const people = await chosenPeople(tx, schoolId, callerId, chosen);
  const receiving = chosen.reissue ? people : people.filter((person) => !person.has_password);
  if (receiving.length > MAX_SLIPS) {
    throw new AppError("invalid", `That is ${receiving.length} people: print at most ${MAX_SLIPS} slips at once (a class or a year group at a time)`);
  }
  let chosenClassName: string | null = null;
  if (chosen.class_id !== undefined) {
    const [row] = await tx.select({ name: classes.name }).from(classes).where(eq(classes.id, chosen.class_id));
    chosenClassName = row?.name ?? null;
  }
  const classOf = (person: Candidate) => chosenClassName ?? [...person.class_names].sort(byClassThenName.compare)[0] ?? NO_CLASS;
  const sorted = [...receiving].sort((a, b) => {
    const classA = classOf(a);
    const classB = classOf(b);
    // People without a class come last.
    if ((classA === NO_CLASS) !== (classB === NO_CLASS)) return classA === NO_CLASS ? 1 : -1;
    return byClassThenName.compare(classA, classB) || compareNames(a.full_name, b.full_name) || (a.id < b.id ? -1 : 1);
  });

  const slips: SignInSlip[] = [];
  // A few hashes at a time: scrypt runs on libuv's pool of four threads; more at once only queue.
  const passwords = new Map<string, { password: string; hash: string }>();
  for (let start = 0; start < sorted.length; start += 4) {
    await Promise.all(
      sorted.slice(start, start + 4).map(async (person) => {
        const password = generateTemporaryPassword();
        passwords.set(person.id, { password, hash: await hashPassword(password) });
      }),
    );
  }
  const now = new Date();
  for (const person of sorted) {
    const issued = passwords.get(person.id)!;
    await tx.update(users).set({ password_hash: issued.hash, must_change_password: true, password_changed_at: now }).where(eq(users.id, person.id));
    slips.push({ full_name: person.full_name, class_name: classOf(person), username: person.username, email: person.email, temporary_password: issued.password });
  }
  const [institute] = await tx.select({ name: institutes.name }).from(institutes).where(eq(institutes.id, schoolId));
  return {
    school_name: institute?.name ?? "",
    sign_in_address: signInAddress,
    slips,
    skipped_with_password: people.length - receiving.length,
  };
}

/**
 * Issues the slips of a choice and prints them as one PDF, in the caller's transaction: a PDF that
 * fails leaves every password as it was. Nobody to print for is a conflict that says why. `print` is
 * the intake imaging's (server/exam/intake/imaging-port.ts), given rather than imported, so identity does
 * not import intake.
 */
export async function printSignInSlips(
  tx: Tx,
  callerId: string,
  input: z.input<typeof signInSlipsInput>,
  using: { signInAddress: string; print: (sheet: SignInSlipSheet) => Promise<Uint8Array> },
): Promise<{ pdf: Uint8Array; count: number; skipped: number }> {
  const slips = await issueSignInSlips(tx, callerId, input, using.signInAddress);
  if (slips.slips.length === 0) throw new AppError("conflict", nobodyToPrint(slips.skipped_with_password));
  return { pdf: await using.print(slips), count: slips.slips.length, skipped: slips.skipped_with_password };
}

/** How many slips a choice would print, and how many people it leaves out for having a password (for the dialog). */
export async function previewSignInSlips(tx: Tx, callerId: string, input: z.input<typeof signInSlipsInput>) {
  const chosen = signInSlipsInput.parse(input);
  const school = await findCallerSchool(tx, callerId);
  if (!school || !isSchoolAdmin(school.roles)) throw new AppError("forbidden", ONLY_ADMINS);
  const people = await chosenPeople(tx, school.instituteId, callerId, chosen);
  const withPassword = people.filter((person) => person.has_password).length;
  return { without_password: people.length - withPassword, with_password: withPassword };
}

export const signInSlipsPreviewOutput = z.object({
  without_password: z.number().int().meta({ description: "People chosen who have no password yet: each gets a slip" }),
  with_password: z.number().int().meta({ description: "People chosen who have a password: a slip only with reissue, which replaces it" }),
});

/** Where the slips send people: the app's sign-in page. */
export const signInAddress = () => `${env().appUrl.replace(/\/+$/, "")}/signin`;

/** Why a choice printed no slip: everyone chosen has a password, or nobody was chosen. */
function nobodyToPrint(skippedWithPassword: number): string {
  return skippedWithPassword > 0
    ? `Everyone chosen already has a password (${skippedWithPassword === 1 ? "1 person" : `${skippedWithPassword} people`}): choose to give them new passwords, which replaces the ones they have`
    : "Nobody to print a slip for: the class, year group or selection has no active people (you never get a slip of your own)";
}
