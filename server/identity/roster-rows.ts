import { textProblem } from "../../lib/rules/input-rules";
import type { RosterPerson } from "./roster-records";
import type { Role } from "../../lib/rules/roles";

/**
 * One person of a roster on their own, before anything is looked up: their role in Markbook and the
 * values as they will be stored, or the reason the row is skipped, in words the file's author knows.
 */

/** Role words of school exports and OneRoster, squashed (lower case, single spaces). */
const roleOfWord: Record<string, Role> = {
  student: "student",
  pupil: "student",
  learner: "student",
  teacher: "teacher",
  staff: "teacher",
  faculty: "teacher",
  "teaching staff": "teacher",
  administrator: "school_admin",
  admin: "school_admin",
  "school admin": "school_admin",
  "department head": "department_head",
  "head of department": "department_head",
  hod: "department_head",
};
/** OneRoster roles of people who have no account in Markbook. */
const rolesWithoutAccounts = new Set(["aide", "guardian", "parent", "relative", "proctor", "carer", "contact"]);

const MAX_NAME = 200;
export const MAX_EMAIL = 254;
const MAX_USERNAME = 64;
const MAX_YEAR_GROUP = 50;
const MAX_SIS_ID = 255;
const MAX_CLASS_NAME = 200;

const EMAIL_SHAPE = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const USERNAME_SHAPE = /^[a-z0-9._-]+$/;

/** A person ready to be matched: values trimmed and checked, email and username in lower case. */
export interface CheckedPerson {
  source: RosterPerson;
  role: Role;
  fullName: string;
  email: string | null;
  username: string | null;
}

export type CheckedRow = { ok: true; person: CheckedPerson } | { ok: false; reason: string };

const skip = (reason: string): CheckedRow => ({ ok: false, reason });

/** The Markbook role a file's role word names, or the reason it names none. */
function roleOf(written: string | null): { role: Role } | { reason: string } {
  if (!written) return { role: "student" };
  const word = written.trim().toLowerCase().replace(/[\s_-]+/g, " ");
  const role = roleOfWord[word];
  if (role) return { role };
  if (rolesWithoutAccounts.has(word)) return { reason: `unknown role "${written}": Markbook has no ${word} accounts` };
  return { reason: `unknown role "${written}": use student, teacher, department head or administrator` };
}

/** The first problem of a text value: too long, or characters a database cannot keep. */
function valueProblem(label: string, value: string | null, max: number): string | null {
  if (value === null) return null;
  if (value.length > max) return `${label} is longer than ${max} characters`;
  const problem = textProblem(value);
  return problem ? `${label} ${problem}` : null;
}

export function checkPerson(person: RosterPerson, classNames: readonly string[]): CheckedRow {
  if (person.retired) return skip(person.retired);
  const mapped = roleOf(person.role);
  if ("reason" in mapped) return skip(mapped.reason);
  if (!person.email && !person.username) return skip("no email or username");
  if (!person.fullName) return skip("no name");
  // An e-mail-shaped username (the usual export of schools that sign in with Google or Microsoft) is the
  // address the person signs in with: it is their email when the row has none, and their Markbook
  // username is made from it as from any email; matching goes by SIS id, then email.
  const usernameIsEmail = person.username !== null && EMAIL_SHAPE.test(person.username.trim().toLowerCase());
  const givenEmail = person.email ?? (usernameIsEmail ? person.username!.trim() : null);
  const givenUsername = usernameIsEmail ? null : person.username;
  const problem =
    valueProblem("the name", person.fullName, MAX_NAME) ??
    valueProblem("the first name", person.givenName, MAX_NAME) ??
    valueProblem("the email", givenEmail, MAX_EMAIL) ??
    valueProblem("the username", givenUsername, MAX_USERNAME) ??
    valueProblem("the year group", person.yearGroup, MAX_YEAR_GROUP) ??
    valueProblem("the ID in the school's system", person.sisId, MAX_SIS_ID) ??
    classNames.map((name) => valueProblem(`the class code "${name.slice(0, 40)}"`, name, MAX_CLASS_NAME)).find(Boolean) ??
    null;
  if (problem) return skip(problem);
  const email = givenEmail?.toLowerCase() ?? null;
  if (email && !EMAIL_SHAPE.test(email)) return skip(`"${givenEmail}" is not an email address`);
  const username = givenUsername?.toLowerCase() ?? null;
  if (username && !USERNAME_SHAPE.test(username)) {
    return skip(`username "${givenUsername}" may use only letters, digits, ".", "_" and "-", or be an email address`);
  }
  return { ok: true, person: { source: person, role: mapped.role, fullName: person.fullName, email, username } };
}
