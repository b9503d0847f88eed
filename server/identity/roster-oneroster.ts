import type { CsvTable } from "./roster-csv";
import type { Roster, RosterClass, RosterPerson, SkippedRow } from "./roster-records";

/**
 * A OneRoster 1.1 CSV bundle as a roster: users.csv (people; sourcedId is their SIS id), classes.csv
 * (a class's name is its classCode, else its title; subjects its subject) and enrollments.csv (a student
 * in a class; a teacher with primary=true is the class's main teacher). Roles are mapped when planned.
 */

const isTrue = (value: string | undefined) => (value ?? "").toLowerCase() === "true";

export function rosterFromOneRoster(users: CsvTable, classTable: CsvTable | null, enrollmentTable: CsvTable | null): Roster {
  const skipped: SkippedRow[] = [];
  const list: RosterPerson[] = [];
  const people = new Map<string, RosterPerson>();
  for (const row of users.rows) {
    const value = (name: string) => row.values[name] || null;
    const given = value("preferredGivenName") ?? value("givenName");
    const fullName = [given, value("familyName")].filter(Boolean).join(" ") || null;
    const retired = value("status")?.toLowerCase() === "tobedeleted" ? "marked to be deleted in the school's system" : (row.values.enabledUser ?? "").toLowerCase() === "false" ? "disabled in the school's system (enabledUser is false)" : null;
    const person: RosterPerson = {
      row: `users.csv row ${row.line}`,
      sisId: value("sourcedId"),
      fullName,
      givenName: given,
      email: value("email"),
      username: value("username"),
      yearGroup: value("grades")?.split(",")[0]?.trim() || null,
      role: value("role"),
      retired,
      classes: [],
      teachers: [],
    };
    // A repeated sourcedId stays in the list (the plan reports it as a duplicate of the first); its enrollments go to the first.
    if (!person.sisId) skipped.push({ row: person.row, name: fullName, reason: "no sourcedId" });
    else {
      list.push(person);
      if (!people.has(person.sisId)) people.set(person.sisId, person);
    }
  }

  const classes = new Map<string, RosterClass>();
  for (const row of classTable?.rows ?? []) {
    const sourcedId = row.values.sourcedId;
    const name = row.values.classCode || row.values.title;
    const label = `classes.csv row ${row.line}`;
    if (!sourcedId) skipped.push({ row: label, name: name || null, reason: "no sourcedId" });
    else if (row.values.status?.toLowerCase() === "tobedeleted") skipped.push({ row: label, name: name || null, reason: "marked to be deleted in the school's system" });
    else if (!name) skipped.push({ row: label, name: null, reason: "no classCode or title" });
    else if (!classes.has(sourcedId)) {
      classes.set(sourcedId, { row: label, key: sourcedId, sisId: sourcedId, name, subject: row.values.subjects?.split(",")[0]?.trim() || null });
    }
  }

  for (const row of enrollmentTable?.rows ?? []) {
    const label = `enrollments.csv row ${row.line}`;
    const person = people.get(row.values.userSourcedId ?? "");
    const classKey = row.values.classSourcedId ?? "";
    const role = (row.values.role ?? "").toLowerCase();
    if (row.values.status?.toLowerCase() === "tobedeleted") continue;
    if (!person) skipped.push({ row: label, name: null, reason: `no user with sourcedId "${row.values.userSourcedId ?? ""}" in users.csv` });
    else if (!classes.has(classKey)) skipped.push({ row: label, name: person.fullName, reason: `no class with sourcedId "${classKey}" in classes.csv` });
    else if (role === "student" || role === "teacher") person.classes.push({ key: classKey, primary: role === "teacher" && isTrue(row.values.primary) });
    else skipped.push({ row: label, name: person.fullName, reason: `enrollment role "${row.values.role ?? ""}": Markbook enrolls students and sets a class's main teacher` });
  }
  return { people: list, classes: [...classes.values()], skipped };
}
