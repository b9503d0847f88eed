import type { RosterImportResult } from "./roster-plan";

/**
 * A roster import's result as plain text for the command line: the counts, then each update and each
 * skipped row with its reason (created people are counted, not listed: a first import lists thousands).
 */
export function describeRosterImport(result: RosterImportResult): string {
  const { counts } = result;
  const lines = [
    result.applied ? "Imported." : "Dry run: nothing was written.",
    `People: ${counts.create} created, ${counts.update} updated, ${counts.unchanged} unchanged, ${counts.skip} skipped`,
    `Classes: ${counts.classesCreate} created, ${counts.classesUpdate} updated, ${counts.classesUnchanged} unchanged; ${counts.enrollmentsCreate} enrollments added`,
    "Nothing is deleted or deactivated by an import; imported people have no password until an admin sets one.",
  ];
  if (result.mappingWarnings.length > 0) lines.push("Check the names:", ...result.mappingWarnings.map((warning) => `  ${warning}`));
  if (result.people.update.length > 0) {
    lines.push("Updated:", ...result.people.update.map((person) => `  ${person.row}: ${person.name}: ${person.changes.join("; ")}`));
  }
  if (result.classes.update.length > 0) {
    lines.push("Classes updated:", ...result.classes.update.map((row) => `  ${row.row}: ${row.name}: ${row.changes.join("; ")}`));
  }
  const noted = [...result.classes.create, ...result.classes.update, ...result.classes.unchanged].filter((row) => row.notes.length > 0);
  if (noted.length > 0) lines.push("Classes to check:", ...noted.map((row) => `  ${row.name}: ${row.notes.join("; ")}`));
  if (result.skipped.length > 0) {
    lines.push("Skipped:", ...result.skipped.map((row) => `  ${row.row}${row.name ? ` (${row.name})` : ""}: ${row.reason}`));
  }
  return lines.join("\n");
}
