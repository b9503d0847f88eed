import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  time,
  timestamp,
  unique,
  uuid,
} from "drizzle-orm/pg-core";
import { institutes, users } from "./identity";

export const classes = pgTable(
  "classes",
  {
    id: uuid().primaryKey().defaultRandom(),
    institute_id: uuid()
      .notNull()
      .references(() => institutes.id, { onDelete: "cascade" }),
    name: text().notNull(),
    subject: text(),
    /** The class's main teacher, when it has one. */
    teacher_id: uuid().references(() => users.id, { onDelete: "set null" }),
    /** The class's id in the school's information system (OneRoster sourcedId): how a re-import finds it. */
    sis_id: text(),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    unique("classes_institute_name_key").on(table.institute_id, table.name),
    unique("classes_institute_sis_id_key").on(table.institute_id, table.sis_id),
    check("classes_name_not_blank", sql`length(trim(${table.name})) > 0`),
  ],
);

/**
 * The other teachers of a class, besides its main teacher (classes.teacher_id, the contract's teacher_id,
 * docs/spec/classroom-api.md "Batch (fields seen)"):
 * a class is taught by its main teacher and by each of these. The main teacher is never listed here.
 */
export const classTeachers = pgTable(
  "class_teachers",
  {
    class_id: uuid()
      .notNull()
      .references(() => classes.id, { onDelete: "cascade" }),
    teacher_id: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.class_id, table.teacher_id] }), index("class_teachers_teacher_idx").on(table.teacher_id)],
);

/**
 * A CSV column mapping as a school admin chose it for one set of headers (server/identity/roster-memory.ts):
 * the next file with the same headers is read the same way without mapping it again.
 */
export const rosterMappings = pgTable(
  "roster_mappings",
  {
    id: uuid().primaryKey().defaultRandom(),
    institute_id: uuid()
      .notNull()
      .references(() => institutes.id, { onDelete: "cascade" }),
    /** sha256 of the normalised header list (trimmed, lower case, spaces folded, sorted). */
    header_key: text().notNull(),
    /** The file's column names as they were, for people reading the table. */
    columns: text().array().notNull(),
    /** The mapping by column name (server/identity/roster-mapping.ts, RosterMapping). */
    mapping: jsonb().notNull(),
    saved_by: uuid().references(() => users.id, { onDelete: "set null" }),
    saved_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [unique("roster_mappings_institute_header_key").on(table.institute_id, table.header_key)],
);

export const enrollments = pgTable(
  "enrollments",
  {
    class_id: uuid()
      .notNull()
      .references(() => classes.id, { onDelete: "cascade" }),
    student_id: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Removing a student from a class makes the enrollment inactive; the row is kept. */
    active: boolean().notNull().default(true),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updated_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.class_id, table.student_id] }),
    index("enrollments_student_idx").on(table.student_id),
  ],
);

export const timetables = pgTable(
  "timetables",
  {
    id: uuid().primaryKey().defaultRandom(),
    institute_id: uuid()
      .notNull()
      .references(() => institutes.id, { onDelete: "cascade" }),
    name: text().notNull(),
    /** What the timetable covers: the whole school, one class, or one teacher. */
    type: text().notNull().default("school"),
    class_id: uuid().references(() => classes.id, { onDelete: "cascade" }),
    active: boolean().notNull().default(false),
    starts_on: date(),
    ends_on: date(),
    created_by: uuid().references(() => users.id, { onDelete: "set null" }),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index("timetables_institute_idx").on(table.institute_id, table.created_at),
    check("timetables_type_known", sql`${table.type} in ('school', 'class', 'teacher', 'exam')`),
    check("timetables_dates_ordered", sql`${table.ends_on} is null or ${table.starts_on} is null or ${table.ends_on} >= ${table.starts_on}`),
  ],
);

export const timetableEntries = pgTable(
  "timetable_entries",
  {
    id: uuid().primaryKey().defaultRandom(),
    timetable_id: uuid()
      .notNull()
      .references(() => timetables.id, { onDelete: "cascade" }),
    /** ISO day of week: 1 = Monday … 7 = Sunday. */
    day: smallint().notNull(),
    period: integer().notNull(),
    start_time: time().notNull(),
    end_time: time().notNull(),
    room: text(),
    class_id: uuid().references(() => classes.id, { onDelete: "set null" }),
    teacher_id: uuid().references(() => users.id, { onDelete: "set null" }),
  },
  (table) => [
    index("timetable_entries_timetable_idx").on(table.timetable_id, table.day, table.period),
    check("timetable_entries_day_range", sql`${table.day} between 1 and 7`),
    check("timetable_entries_period_positive", sql`${table.period} >= 1`),
    check("timetable_entries_end_after_start", sql`${table.end_time} > ${table.start_time}`),
    // Nobody can be in two places at once within one timetable.
    unique("timetable_entries_teacher_slot_key").on(table.timetable_id, table.day, table.period, table.teacher_id),
    unique("timetable_entries_room_slot_key").on(table.timetable_id, table.day, table.period, table.room),
  ],
);
