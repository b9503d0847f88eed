/**
 * A roster as the import plans it, whatever file it came from (a school export's CSV through a column
 * mapping, or a OneRoster bundle): people, each with the classes they belong to, and the classes.
 */

/** Where a record came from, as the person who made the file finds it: "row 14", "users.csv row 14". */
type RowLabel = string;

export interface RosterPerson {
  row: RowLabel;
  /** The person's id in the school's information system (OneRoster sourcedId). */
  sisId: string | null;
  fullName: string | null;
  /** The name a person goes by day to day (their display name when created). */
  givenName: string | null;
  email: string | null;
  username: string | null;
  yearGroup: string | null;
  /** The role as the file writes it ("Student", "administrator", "parent"); null: a student. */
  role: string | null;
  /** Set when the school's system says the record is going away (OneRoster status, enabledUser). */
  retired: string | null;
  /** Classes by RosterClass.key; primary: the class's main teacher (OneRoster enrollments.primary). */
  classes: { key: string; primary: boolean }[];
  /**
   * The teachers a CSV row names for its classes (the Teacher column), by username or e-mail: one for
   * all the row's classes, or one per class in the same order. Empty for OneRoster (enrollments say it).
   */
  teachers: string[];
}

export interface RosterClass {
  row: RowLabel;
  /** How people refer to the class in this roster: its code (CSV) or sourcedId (OneRoster). */
  key: string;
  sisId: string | null;
  /** The class's name in Markbook: its code. */
  name: string;
  subject: string | null;
}

/** A row the import leaves alone, and why, in words the person who made the file understands. */
export interface SkippedRow {
  row: RowLabel;
  name: string | null;
  reason: string;
}

export interface Roster {
  people: RosterPerson[];
  classes: RosterClass[];
  /** Rows already refused while reading the file (an enrollment of a user the bundle does not have). */
  skipped: SkippedRow[];
}
