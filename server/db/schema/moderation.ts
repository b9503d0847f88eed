import { sql } from "drizzle-orm";
import { check, index, integer, numeric, pgTable, primaryKey, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { examBatches, examQuestions, examSubmissions } from "./exam";
import { users } from "./identity";

/**
 * Moderation (issue 19): a sample of a batch's scripts second-marked blind, the agreement of the two
 * markers, the final mark a moderator sets where they differ, and the batch's sign-off
 * (server/exam/moderation.ts; who reads and writes each table: server/db/sql/policies/).
 */

/** A batch's moderation sample: who chose it, when, how (a percentage or chosen scripts), and the tolerance. */
export const examModerationSamples = pgTable(
  "exam_moderation_samples",
  {
    batch_id: uuid()
      .primaryKey()
      .references(() => examBatches.id, { onDelete: "cascade" }),
    /** Differences of at most this many marks count as agreement (and need no reconciling). */
    tolerance: numeric({ precision: 8, scale: 2 }).notNull().default("1"),
    /** The percentage asked for, or null when the scripts were chosen one by one. */
    percent: integer(),
    chosen_by: uuid().references(() => users.id, { onDelete: "set null" }),
    chosen_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check("exam_moderation_samples_tolerance_non_negative", sql`${table.tolerance} >= 0`),
    check("exam_moderation_samples_percent_range", sql`${table.percent} is null or ${table.percent} between 1 and 100`),
  ],
);

/** The scripts of a batch's sample. */
export const examModerationScripts = pgTable(
  "exam_moderation_scripts",
  {
    batch_id: uuid()
      .notNull()
      .references(() => examModerationSamples.batch_id, { onDelete: "cascade" }),
    submission_id: uuid()
      .notNull()
      .references(() => examSubmissions.id, { onDelete: "cascade" }),
  },
  (table) => [primaryKey({ columns: [table.batch_id, table.submission_id] })],
);

/** A blind second mark of one (submission, question), by a marker other than the first mark's. */
export const examSecondMarks = pgTable(
  "exam_second_marks",
  {
    id: uuid().primaryKey().defaultRandom(),
    batch_id: uuid()
      .notNull()
      .references(() => examBatches.id, { onDelete: "cascade" }),
    submission_id: uuid()
      .notNull()
      .references(() => examSubmissions.id, { onDelete: "cascade" }),
    question_id: uuid()
      .notNull()
      .references(() => examQuestions.id, { onDelete: "cascade" }),
    marker_id: uuid().references(() => users.id, { onDelete: "set null" }),
    awarded_marks: numeric({ precision: 8, scale: 2 }).notNull(),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updated_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex("exam_second_marks_pair_key").on(table.submission_id, table.question_id),
    index("exam_second_marks_batch_idx").on(table.batch_id),
    check("exam_second_marks_awarded_non_negative", sql`${table.awarded_marks} >= 0`),
  ],
);

/**
 * The final mark a moderator set for a pair whose marks differed: the first mark before it, its marker
 * and time, and the second mark stay here; the mark itself (exam_mark_entries.awarded_marks) becomes
 * the final one.
 */
export const examReconciliations = pgTable(
  "exam_reconciliations",
  {
    id: uuid().primaryKey().defaultRandom(),
    batch_id: uuid()
      .notNull()
      .references(() => examBatches.id, { onDelete: "cascade" }),
    submission_id: uuid()
      .notNull()
      .references(() => examSubmissions.id, { onDelete: "cascade" }),
    question_id: uuid()
      .notNull()
      .references(() => examQuestions.id, { onDelete: "cascade" }),
    first_marks: numeric({ precision: 8, scale: 2 }).notNull(),
    first_marker_id: uuid().references(() => users.id, { onDelete: "set null" }),
    first_marked_at: timestamp({ withTimezone: true }).notNull(),
    second_marks: numeric({ precision: 8, scale: 2 }).notNull(),
    final_marks: numeric({ precision: 8, scale: 2 }).notNull(),
    reconciled_by: uuid().references(() => users.id, { onDelete: "set null" }),
    reconciled_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex("exam_reconciliations_pair_key").on(table.submission_id, table.question_id), index("exam_reconciliations_batch_idx").on(table.batch_id)],
);

/** Sign-offs of a batch by a department head; the one not reopened makes the batch read-only. */
export const examBatchSignOffs = pgTable(
  "exam_batch_sign_offs",
  {
    id: uuid().primaryKey().defaultRandom(),
    batch_id: uuid()
      .notNull()
      .references(() => examBatches.id, { onDelete: "cascade" }),
    signed_off_by: uuid().references(() => users.id, { onDelete: "set null" }),
    signed_off_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    reopened_by: uuid().references(() => users.id, { onDelete: "set null" }),
    reopened_at: timestamp({ withTimezone: true }),
  },
  (table) => [
    uniqueIndex("exam_batch_sign_offs_current_key")
      .on(table.batch_id)
      .where(sql`${table.reopened_at} is null`),
  ],
);
