import { sql } from "drizzle-orm";
import { check, foreignKey, index, integer, pgTable, primaryKey, timestamp, uuid } from "drizzle-orm/pg-core";
import { examBatches, examQuestions, examSubmissions } from "./exam";
import { users } from "./identity";

/**
 * Shared marking (issue 19): the teachers a batch's owner invited to mark it. A batch without rows here
 * is marked by its owner and the department heads of its school; once it has markers, also by a marker
 * within their allocation (app.mark_write_refusal, server/db/sql/functions/mark_write_refusal.sql).
 */
export const examBatchMarkers = pgTable(
  "exam_batch_markers",
  {
    batch_id: uuid()
      .notNull()
      .references(() => examBatches.id, { onDelete: "cascade" }),
    user_id: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    added_by: uuid().references(() => users.id, { onDelete: "set null" }),
    added_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ name: "exam_batch_markers_pkey", columns: [table.batch_id, table.user_id] }), index("exam_batch_markers_user_idx").on(table.user_id)],
);

/**
 * What a marker marks: a question (every script), a range of script numbers (every question), or a
 * question within a range. A marker's work is the union of their rows.
 */
export const examAllocations = pgTable(
  "exam_allocations",
  {
    id: uuid().primaryKey().defaultRandom(),
    batch_id: uuid().notNull(),
    marker_id: uuid().notNull(),
    /** A leaf question of the batch's template; null: every question. */
    question_id: uuid().references(() => examQuestions.id, { onDelete: "cascade" }),
    /** Script numbers first..last (inclusive); null first: from the first script, null last: to the last. */
    first_script: integer(),
    last_script: integer(),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    foreignKey({
      name: "exam_allocations_marker_fk",
      columns: [table.batch_id, table.marker_id],
      foreignColumns: [examBatchMarkers.batch_id, examBatchMarkers.user_id],
    }).onDelete("cascade"),
    index("exam_allocations_batch_marker_idx").on(table.batch_id, table.marker_id),
    check("exam_allocations_says_what", sql`${table.question_id} is not null or ${table.first_script} is not null or ${table.last_script} is not null`),
    check("exam_allocations_range", sql`${table.first_script} is null or ${table.last_script} is null or ${table.first_script} <= ${table.last_script}`),
  ],
);

/**
 * Who is marking a (script, question) now: one row per pair (the primary key), so two markers claiming
 * it at once cannot both win. A claim lapses at expires_at; saving a mark of the pair renews it.
 */
export const examMarkClaims = pgTable(
  "exam_mark_claims",
  {
    submission_id: uuid()
      .notNull()
      .references(() => examSubmissions.id, { onDelete: "cascade" }),
    question_id: uuid()
      .notNull()
      .references(() => examQuestions.id, { onDelete: "cascade" }),
    batch_id: uuid()
      .notNull()
      .references(() => examBatches.id, { onDelete: "cascade" }),
    marker_id: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    claimed_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    expires_at: timestamp({ withTimezone: true }).notNull(),
  },
  (table) => [
    primaryKey({ name: "exam_mark_claims_pkey", columns: [table.submission_id, table.question_id] }),
    index("exam_mark_claims_batch_idx").on(table.batch_id, table.marker_id),
  ],
);
