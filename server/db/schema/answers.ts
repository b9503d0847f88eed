import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";
import { examBatches, examQuestions, examResponseAreas, examSubmissions } from "./exam";

/**
 * Answers read from the scan (issue 36): one row per (script, response area) read, written by the job
 * that reads a script's filed pages (server/exam/answers/read-job.ts) as the service, and replaced
 * whenever the script's scan changes. Staff who read the batch's marks read these; students never.
 * The batch's writers set only `automatic_mark_undone` (undoAutomaticMark).
 */
export const examAnswerReadings = pgTable(
  "exam_answer_readings",
  {
    id: uuid().primaryKey().defaultRandom(),
    /** Denormalised from the submission, for row-level security and the batch's lists. */
    batch_id: uuid()
      .notNull()
      .references(() => examBatches.id, { onDelete: "cascade" }),
    submission_id: uuid()
      .notNull()
      .references(() => examSubmissions.id, { onDelete: "cascade" }),
    question_id: uuid()
      .notNull()
      .references(() => examQuestions.id, { onDelete: "cascade" }),
    response_area_id: uuid()
      .notNull()
      .references(() => examResponseAreas.id, { onDelete: "cascade" }),
    /** The page of the script (its assembled scan, 1-based) the area was read on. */
    page_number: integer().notNull(),
    /** A tick-box area or a written one. */
    kind: text().notNull(),
    /** Tick area: the labels ticked ([] for none), null when undecided; a written area: null. */
    answer: jsonb().$type<string[]>(),
    /** Written area: blank / written / uncertain; a tick area: null. */
    blank: text(),
    /** What was measured: a tick area's boxes (label, state, ink, filled), a written area's ink. */
    measurements: jsonb().$type<Record<string, unknown>>().notNull(),
    /** How the scan was placed on its template page: by the code's corners, by the content, or not at all. */
    alignment: text().notNull(),
    read_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    /** The marker undid the automatic mark of this question: a re-read never writes it again. */
    automatic_mark_undone: boolean().notNull().default(false),
  },
  (table) => [
    unique("exam_answer_readings_submission_area_key").on(table.submission_id, table.response_area_id),
    index("exam_answer_readings_batch_idx").on(table.batch_id, table.question_id),
    check("exam_answer_readings_kind_known", sql`${table.kind} in ('ticks', 'written')`),
    check("exam_answer_readings_alignment_known", sql`${table.alignment} in ('code', 'content', 'none')`),
    check("exam_answer_readings_page_positive", sql`${table.page_number} >= 1`),
    check(
      "exam_answer_readings_answer_bounded",
      sql`${table.answer} is null or (${table.kind} = 'ticks' and jsonb_typeof(${table.answer}) = 'array' and jsonb_array_length(${table.answer}) <= 26)`,
    ),
    check(
      "exam_answer_readings_blank_known",
      sql`(${table.kind} = 'ticks' and ${table.blank} is null) or (${table.kind} = 'written' and ${table.blank} in ('blank', 'written', 'uncertain'))`,
    ),
    check(
      "exam_answer_readings_measurements_bounded",
      sql`jsonb_typeof(${table.measurements}) = 'object' and pg_column_size(${table.measurements}) <= 8192`,
    ),
  ],
);
