import { foldName, foldedIncludes } from "@/lib/text/names";

/**
 * Choosing one of the school's students by typing (adding a student to a class, assigning an unmatched
 * scan): the search matches the name or the email, a long list is cut to what a select can hold, and the
 * choice follows the search.
 */

/** A long school list is narrowed by the search box; the select never holds more than this. */
export const MAX_STUDENT_OPTIONS = 200;

/** The search as typed, folded (case, accents, apostrophes aside) and ready for `matchesStudentSearch`. */
export const studentSearchNeedle = (search: string) => foldName(search);

/** An empty search matches everyone; otherwise the folded name or email must contain it ("zoe" finds Zoë). */
export function matchesStudentSearch(student: { full_name: string; email: string }, needle: string): boolean {
  return foldedIncludes(student.full_name, needle) || foldedIncludes(student.email, needle);
}

/** The choice follows the list: one no longer shown gives way to the first shown. */
export function followingChoice(shown: ReadonlyArray<{ id: string }>, chosen: string): string {
  return shown.some((option) => option.id === chosen) ? chosen : (shown[0]?.id ?? "");
}

/** Why nothing could be chosen: nothing matches the search, or nothing was chosen. */
export const noStudentChosen = (needle: string) => (needle ? "No student matches this search." : "Choose a student.");
