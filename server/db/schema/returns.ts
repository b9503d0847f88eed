import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, numeric, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { examBatches, examQuestions, examSubmissions } from "./exam";
import { users } from "./identity";
import { examRubricItems } from "./rubrics";

/**
 * Marked work back to students (issue 35): the marks' annotations on the scan, review requests and the
 * history of every mark change. Who reads and writes each table: server/db/sql/policies/.
 */

export const annotationKind = pgEnum("annotation_kind", ["tick", "cross", "text", "pen", "highlight", "stamp"]);
/** First marking (students see these once released), or a blind second marker's own (nobody else's screen). */
export const annotationLayer = pgEnum("annotation_layer", ["marking", "second_marking"]);

/**
 * Page-relative geometry (0–1 on both axes, as response areas): an anchor point for ticks, crosses,
 * text and stamps; a rectangle for a highlight; points with pen pressure for a stroke. Its exact shape
 * per kind is checked at the edge (lib/rules/annotation.ts).
 */
export interface AnnotationGeometry {
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  /** [x, y, pressure 0–1] for a pen stroke. */
  points?: [number, number, number][];
}

/** A vector shape over one page of a script's scan; the scan itself is never changed. */
export const examAnnotations = pgTable(
  "exam_annotations",
  {
    /** Client-owned UUID, so a save is idempotent and a mark's annotation_shape_ids can name it before it is stored. */
    id: uuid().primaryKey(),
    /** Derived from the submission, never taken from a client. */
    batch_id: uuid()
      .notNull()
      .references(() => examBatches.id, { onDelete: "cascade" }),
    submission_id: uuid()
      .notNull()
      .references(() => examSubmissions.id, { onDelete: "cascade" }),
    page: integer().notNull(),
    kind: annotationKind().notNull(),
    layer: annotationLayer().notNull().default("marking"),
    geometry: jsonb().$type<AnnotationGeometry>().notNull(),
    /** A text comment's words, or the stamped rubric item's label as it read when stamped. */
    text: text(),
    question_id: uuid().references(() => examQuestions.id, { onDelete: "set null" }),
    rubric_item_id: uuid().references(() => examRubricItems.id, { onDelete: "set null" }),
    author_id: uuid().references(() => users.id, { onDelete: "set null" }),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updated_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index("exam_annotations_submission_idx").on(table.submission_id, table.page),
    index("exam_annotations_batch_idx").on(table.batch_id),
    check("exam_annotations_page_positive", sql`${table.page} >= 1`),
    check("exam_annotations_geometry_object", sql`jsonb_typeof(${table.geometry}) = 'object'`),
    // A stroke is bounded at the edge (points); this is the last guard against a row no screen can draw.
    check("exam_annotations_geometry_bounded", sql`pg_column_size(${table.geometry}) <= 262144`),
    check("exam_annotations_text_bounded", sql`${table.text} is null or length(${table.text}) <= 2000`),
  ],
);

export const reviewRequestStatus = pgEnum("review_request_status", ["open", "answered"]);
export const reviewOutcome = pgEnum("review_outcome", ["kept", "changed"]);

/** A student's request that one question of their released script be looked at again, and its answer. */
export const examReviewRequests = pgTable(
  "exam_review_requests",
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
    student_id: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    reason: text().notNull(),
    status: reviewRequestStatus().notNull().default("open"),
    /** Who it went to: the question's marker (shared marking's allocation), else the batch's owner. */
    assigned_to: uuid().references(() => users.id, { onDelete: "set null" }),
    marks_before: numeric({ precision: 8, scale: 2 }),
    marks_after: numeric({ precision: 8, scale: 2 }),
    outcome: reviewOutcome(),
    reply: text(),
    answered_by: uuid().references(() => users.id, { onDelete: "set null" }),
    answered_at: timestamp({ withTimezone: true }),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    // One open request per (script, question).
    uniqueIndex("exam_review_requests_open_key")
      .on(table.submission_id, table.question_id)
      .where(sql`${table.status} = 'open'`),
    index("exam_review_requests_batch_idx").on(table.batch_id, table.status),
    index("exam_review_requests_student_idx").on(table.student_id),
    check("exam_review_requests_reason_length", sql`length(trim(${table.reason})) between 1 and 2000`),
    check("exam_review_requests_reply_length", sql`${table.reply} is null or length(${table.reply}) <= 2000`),
    check(
      "exam_review_requests_answered_whole",
      sql`(${table.status} = 'answered') = (${table.answered_at} is not null and ${table.outcome} is not null)`,
    ),
  ],
);

/**
 * Every change of a recorded mark: before → after, who, when and why (the reason a review answer or a
 * moderator gave, from the transaction's app.mark_change_reason). Written only by the trigger
 * app.keep_mark_history on exam_mark_entries, so no path that changes a mark can skip it.
 */
export const examMarkHistory = pgTable(
  "exam_mark_history",
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
    marks_before: numeric({ precision: 8, scale: 2 }),
    marks_after: numeric({ precision: 8, scale: 2 }),
    changed_by: uuid().references(() => users.id, { onDelete: "set null" }),
    changed_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    reason: text(),
  },
  (table) => [index("exam_mark_history_pair_idx").on(table.submission_id, table.question_id, table.changed_at)],
);
