import { z } from "zod";
import { text } from "../../lib/rules/input-rules";
import type { CsvTable } from "./roster-csv";
import type { Roster, RosterClass, RosterPerson } from "./roster-records";

/**
 * Which column of a school export's CSV holds which field: guessed from the header, changed on screen,
 * and turned into a roster. Class codes come from one column ("10A; 10B" or "10A, 10B") or several.
 */

const column = text(200).trim().min(1);

export const rosterMappingInput = z.object({
  fullName: column.nullish(),
  firstName: column.nullish(),
  /** Where the first name is blank: a legal forename beside a preferred name (SIMS, Arbor). */
  legalFirstName: column.nullish(),
  lastName: column.nullish(),
  email: column.nullish(),
  username: column.nullish(),
  yearGroup: column.nullish(),
  role: column.nullish(),
  sisId: column.nullish(),
  /** The teacher of the row's classes, named by their username or e-mail (several: one per class, in order). */
  teacher: column.nullish(),
  classCodes: z.array(column).max(20, "at most 20 class columns").default([]),
});
export type RosterMapping = z.output<typeof rosterMappingInput>;
type SingleField = Exclude<keyof RosterMapping, "classCodes">;

/** The fields in the order the mapping screen shows them, with the words it uses. */
const mappingFields: { field: SingleField; label: string }[] = [
  { field: "fullName", label: "Full name" },
  { field: "firstName", label: "First name" },
  { field: "legalFirstName", label: "Legal first name" },
  { field: "lastName", label: "Last name" },
  { field: "email", label: "Email" },
  { field: "username", label: "Username" },
  { field: "yearGroup", label: "Year group" },
  { field: "role", label: "Role" },
  { field: "sisId", label: "ID in the school's system" },
  { field: "teacher", label: "Teacher" },
];

const squash = (header: string) => header.toLowerCase().replace(/[^a-z0-9]/g, "");

/**
 * Header words (squashed: lower case, letters and digits) that name each field in school exports, the
 * preferred first: a preferred name is the first name when the file has one, the legal forename filling
 * in where it is blank (docs/decisions.md, "Preferred name before legal forename"); UPN before admission
 * number (it stays with a pupil from school to school).
 */
const headerWords: Record<SingleField, string[]> = {
  fullName: ["name", "fullname", "studentname", "pupilname", "staffname", "displayname", "legalname", "personname"],
  firstName: ["preferredname", "preferredforename", "preferredfirstname", "preferredgivenname", "knownas", "chosenname", "firstname", "forename", "givenname", "forenames", "first", "legalforename", "legalfirstname", "legalgivenname", "legalforenames"],
  legalFirstName: ["legalforename", "legalfirstname", "legalgivenname", "legalforenames", "forename", "firstname", "givenname", "forenames"],
  lastName: ["surname", "lastname", "familyname", "legalsurname", "legallastname", "legalfamilyname", "preferredsurname", "preferredlastname", "last"],
  email: ["email", "emailaddress", "mail", "schoolemail", "studentemail", "staffemail", "workemail", "primaryemail", "pupilemail"],
  username: ["username", "login", "loginname", "userid", "loginid", "account", "accountname"],
  yearGroup: ["yeargroup", "year", "ncyear", "curriculumyear", "yr", "yearlevel", "grade", "grades", "gradelevel", "currentyear", "yeartaughtin"],
  role: ["role", "type", "usertype", "accounttype", "persontype", "roles"],
  teacher: ["teacher", "classteacher", "teachers", "mainteacher", "subjectteacher", "teacherusername", "teacheremail", "teacheremailaddress", "teachercode", "staffcode", "teacherlogin", "staff", "staffusername", "staffcodes"],
  sisId: ["sisid", "upn", "uniquepupilnumber", "admissionnumber", "admissionno", "adno", "admno", "candidatenumber", "candidateno", "uci", "id", "studentid", "pupilid", "staffid", "personid", "misid", "sourcedid", "externalid", "identifier"],
};
const classWords = /^(class|classes|classcode|classcodes|set|sets|teachinggroup|teachinggroups|teachingset|teachingsets|group|groups|classname|classnames)\d*$/;
/** Registration (tutor, form) groups: the classes when the file has no teaching groups. */
const registrationWords = /^(reggroup|registrationgroup|regform|registrationform|tutorgroup|tutorgroups|form|formgroup|formclass|homeroom)\d*$/;

/** The mapping a header suggests: each field to the column of its most telling word, classes to every class column. */
export function guessMapping(columns: readonly string[]): RosterMapping {
  const teaching = columns.filter((name) => classWords.test(squash(name)));
  const mapping: RosterMapping = { classCodes: teaching.length > 0 ? teaching : columns.filter((name) => registrationWords.test(squash(name))) };
  const taken = new Set<string>();
  for (const { field } of mappingFields) {
    const chosen = headerWords[field].map((word) => columns.find((name) => squash(name) === word && !taken.has(name))).find(Boolean) ?? null;
    mapping[field] = chosen;
    if (chosen) taken.add(chosen);
  }
  return mapping;
}

/** What keeps a mapping from being imported, in the words of the mapping screen (empty when it can be). */
export function mappingProblems(mapping: RosterMapping, columns: readonly string[]): string[] {
  const problems: string[] = [];
  const label = (field: SingleField) => mappingFields.find((entry) => entry.field === field)!.label;
  for (const { field } of mappingFields) {
    const chosen = mapping[field];
    if (chosen && !columns.includes(chosen)) problems.push(`${label(field)}: the file has no column "${chosen}"`);
  }
  for (const chosen of mapping.classCodes) {
    if (!columns.includes(chosen)) problems.push(`Classes: the file has no column "${chosen}"`);
  }
  if (!mapping.fullName && !(mapping.firstName || mapping.legalFirstName || mapping.lastName)) problems.push("Choose the column with names (or first and last names)");
  if (!mapping.email && !mapping.username) problems.push("Choose the column with email addresses or usernames");
  return problems;
}

/**
 * What the import can do but the person choosing the mapping should know, in the words of the mapping
 * screen: a name built from one part only (everyone listed by surname, say), a name column empty in every row.
 */
export function mappingWarnings(mapping: RosterMapping, table: CsvTable): string[] {
  const warnings: string[] = [];
  const rows = table.rows.length;
  const everyone = rows === 1 ? "the 1 person" : `all ${rows} people`;
  const blank = (chosen: string | null | undefined) => Boolean(chosen) && table.rows.every((row) => !row.values[chosen!]);
  if (!mapping.fullName) {
    const first = mapping.firstName || mapping.legalFirstName;
    if (mapping.lastName && !first) warnings.push(`First name: no column is chosen, so ${everyone} would have a last name only. Choose the column with first names (Forename, Preferred Name) if the file has one.`);
    if (first && !mapping.lastName) warnings.push(`Last name: no column is chosen, so ${everyone} would have a first name only. Choose the column with last names (Surname) if the file has one.`);
  }
  const label = (field: SingleField) => mappingFields.find((entry) => entry.field === field)!.label;
  for (const field of ["fullName", "firstName", "legalFirstName", "lastName"] as const) {
    if (rows > 0 && blank(mapping[field])) warnings.push(`${label(field)}: the column "${mapping[field]}" is empty in every row.`);
  }
  return warnings;
}

/** Class codes in one cell: "10A; 10B", "10A, 10B" or "10A". */
const splitClassCodes = (cell: string) =>
  cell
    .split(/[;,]/)
    .map((code) => code.trim())
    .filter(Boolean);

/** The roster of a CSV read through a mapping (one the caller checked with mappingProblems). */
export function rosterFromCsv(table: CsvTable, mapping: RosterMapping): Roster {
  const classes = new Map<string, RosterClass>();
  const people = table.rows.map((row): RosterPerson => {
    const value = (field: SingleField) => {
      const chosen = mapping[field];
      return (chosen && row.values[chosen]) || null;
    };
    const label = `row ${row.line}`;
    const codes = [...new Set(mapping.classCodes.flatMap((name) => splitClassCodes(row.values[name] ?? "")))];
    for (const code of codes) {
      const key = code.toLowerCase();
      if (!classes.has(key)) classes.set(key, { row: label, key, sisId: null, name: code, subject: null });
    }
    const teacherCell = value("teacher");
    const first = value("firstName") ?? value("legalFirstName");
    const last = value("lastName");
    return {
      row: label,
      sisId: value("sisId"),
      fullName: value("fullName") ?? ([first, last].filter(Boolean).join(" ") || null),
      givenName: first,
      email: value("email"),
      username: value("username"),
      yearGroup: value("yearGroup"),
      role: value("role"),
      retired: null,
      classes: codes.map((code) => ({ key: code.toLowerCase(), primary: false })),
      teachers: teacherCell ? splitClassCodes(teacherCell) : [],
    };
  });
  return { people, classes: [...classes.values()], skipped: [] };
}

/** Up to `count` distinct non-blank values of each column, for the mapping screen. */
export function sampleValues(table: CsvTable, count = 3): { name: string; samples: string[] }[] {
  return table.columns.map((name) => {
    const samples = new Set<string>();
    for (const row of table.rows) {
      const value = row.values[name];
      if (value) samples.add(value.slice(0, 80));
      if (samples.size >= count) break;
    }
    return { name, samples: [...samples] };
  });
}
