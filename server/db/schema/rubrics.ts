import { sql } from "drizzle-orm";
import { check, foreignKey, index, integer, jsonb, numeric, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { examMarkEntries, examQuestions, examTemplates } from "./exam";
import { users } from "./identity";

/**
 * A question's rubric: the mark scheme's points as items a marker applies (each a short text worth
 * points, plus or minus). A mark made of items says so in its mark_scheme_detail
 * (`{"type": "rubric", "items": [item ids]}`) and its awarded_marks is their sum within 0..max_marks;
 * changing an item's points re-scores those marks (app.rescore_rubric_marks in server/db/sql/functions/).
 */
export const examRubricItems = pgTable(
  "exam_rubric_items",
  {
    id: uuid().primaryKey().defaultRandom(),
    template_id: uuid()
      .notNull()
      .references(() => examTemplates.id, { onDelete: "cascade" }),
    question_id: uuid().notNull(),
    /** Order on the marking screen: the first item is key 1. */
    position: integer().notNull().default(0),
    text: text().notNull(),
    points: numeric({ precision: 8, scale: 2 }).notNull(),
    spec_ref: text(),
    /** A comment to give the student when the item is applied (the saved comment). */
    comment: text(),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updated_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    foreignKey({
      name: "exam_rubric_items_question_fk",
      columns: [table.template_id, table.question_id],
      foreignColumns: [examQuestions.template_id, examQuestions.id],
    }).onDelete("cascade"),
    index("exam_rubric_items_question_idx").on(table.question_id, table.position),
    check("exam_rubric_items_text_not_blank", sql`length(trim(${table.text})) > 0`),
  ],
);

/** One change of a rubric: who, when, the item before and after, and how many marks it re-scored. */
export const examRubricEdits = pgTable(
  "exam_rubric_edits",
  {
    id: uuid().primaryKey().defaultRandom(),
    template_id: uuid()
      .notNull()
      .references(() => examTemplates.id, { onDelete: "cascade" }),
    question_id: uuid().notNull(),
    /** No foreign key: the edit that deleted an item outlives it. */
    rubric_item_id: uuid(),
    /** created, changed, deleted (an item), or max_marks (the question's maximum, which clamps the sums). */
    kind: text().notNull(),
    edited_by: uuid().references(() => users.id, { onDelete: "set null" }),
    edited_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    before: jsonb(),
    after: jsonb(),
    marks_rescored: integer().notNull().default(0),
  },
  (table) => [
    index("exam_rubric_edits_question_idx").on(table.question_id, table.edited_at),
    check("exam_rubric_edits_kind_known", sql`${table.kind} in ('created', 'changed', 'deleted', 'max_marks')`),
  ],
);

/** Each mark a rubric edit re-scored: its mark before and after (the audit row of a re-score). */
export const examMarkRescores = pgTable(
  "exam_mark_rescores",
  {
    id: uuid().primaryKey().defaultRandom(),
    edit_id: uuid()
      .notNull()
      .references(() => examRubricEdits.id, { onDelete: "cascade" }),
    mark_id: uuid()
      .notNull()
      .references(() => examMarkEntries.id, { onDelete: "cascade" }),
    batch_id: uuid().notNull(),
    awarded_before: numeric({ precision: 8, scale: 2 }),
    awarded_after: numeric({ precision: 8, scale: 2 }),
  },
  (table) => [index("exam_mark_rescores_mark_idx").on(table.mark_id), index("exam_mark_rescores_edit_idx").on(table.edit_id)],
);

/**
 * Comments saved for a question (the comment bank): what a marker writes or dictates often, offered on
 * the marking screen beside the comments used most on the question's marks.
 */
export const examSavedComments = pgTable(
  "exam_saved_comments",
  {
    id: uuid().primaryKey().defaultRandom(),
    template_id: uuid()
      .notNull()
      .references(() => examTemplates.id, { onDelete: "cascade" }),
    question_id: uuid().notNull(),
    text: text().notNull(),
    created_by: uuid().references(() => users.id, { onDelete: "set null" }),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    foreignKey({
      name: "exam_saved_comments_question_fk",
      columns: [table.template_id, table.question_id],
      foreignColumns: [examQuestions.template_id, examQuestions.id],
    }).onDelete("cascade"),
    uniqueIndex("exam_saved_comments_question_text_key").on(table.question_id, table.text),
    check("exam_saved_comments_text_not_blank", sql`length(trim(${table.text})) > 0`),
  ],
);
