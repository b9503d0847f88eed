import { sql } from "drizzle-orm";
import {
  boolean,
  check,
  doublePrecision,
  foreignKey,
  index,
  integer,
  jsonb,
  numeric,
  pgEnum,
  pgTable,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
  bigint,
} from "drizzle-orm/pg-core";
import { classes } from "./classroom";
import { institutes, users } from "./identity";
import type { NameBox } from "../../../lib/rules/name-box";
import type { TickBox } from "../../../lib/rules/tick-boxes";

export const templateStatus = pgEnum("template_status", ["draft", "ready", "archived"]);
export const batchStatus = pgEnum("batch_status", ["open", "archived"]);
export const submissionStatus = pgEnum("submission_status", ["absent", "unmatched", "matched", "marking", "complete"]);
/** How a scan found its submission: chosen by hand, in roster order, or by the code printed on its pages. */
export const matchingMethod = pgEnum("matching_method", ["manual", "ordered", "qr"]);
export const responseAreaKind = pgEnum("response_area_kind", ["response", "context"]);

/** The catalogue of exam papers shared by every school (exam boards publish these). */
export const examPapers = pgTable("exam_papers", {
  /** The contract's exam_id (docs/spec/classroom-api.md "Template (fields seen)"). */
  id: text().primaryKey(),
  exam_code: text().notNull().unique(),
  title: text().notNull(),
  subject: text(),
  board: text(),
  /** Code of the specification the paper assesses (graph join key). */
  specification: text(),
  source_file_id: uuid().references(() => files.id, { onDelete: "set null" }),
  page_count: integer(),
  created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

/** Uploaded files (papers, scans). The bytes live in the storage port; this row is the index. */
export const files = pgTable(
  "files",
  {
    id: uuid().primaryKey().defaultRandom(),
    /** Null for catalogue files, which every school may read. */
    institute_id: uuid().references(() => institutes.id, { onDelete: "cascade" }),
    owner_id: uuid().references(() => users.id, { onDelete: "set null" }),
    bucket: text().notNull(),
    storage_key: text().notNull(),
    content_type: text().notNull(),
    byte_size: bigint({ mode: "number" }).notNull(),
    sha256: text().notNull(),
    original_name: text(),
    page_count: integer(),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    unique("files_bucket_key_key").on(table.bucket, table.storage_key),
    check("files_size_non_negative", sql`${table.byte_size} >= 0`),
  ],
);

export const examTemplates = pgTable(
  "exam_templates",
  {
    id: uuid().primaryKey().defaultRandom(),
    institute_id: uuid()
      .notNull()
      .references(() => institutes.id, { onDelete: "cascade" }),
    owner_id: uuid()
      .notNull()
      .references(() => users.id),
    title: text().notNull(),
    subject: text(),
    exam_id: text().references(() => examPapers.id, { onDelete: "set null" }),
    exam_code: text(),
    source_file_id: uuid().references(() => files.id, { onDelete: "set null" }),
    page_count: integer(),
    /**
     * Where students write their name (page-relative, as response areas): the crop the Identify queue
     * shows for a script without a readable code. Null: the top of page 1.
     */
    name_box: jsonb().$type<NameBox>(),
    status: templateStatus().notNull().default("draft"),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updated_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index("exam_templates_institute_idx").on(table.institute_id, table.status),
    check("exam_templates_title_not_blank", sql`length(trim(${table.title})) > 0`),
    check("exam_templates_page_count_positive", sql`${table.page_count} is null or ${table.page_count} >= 1`),
  ],
);

export const examQuestions = pgTable(
  "exam_questions",
  {
    /** Client-owned UUID, kept across saves: the join key to the graph. */
    id: uuid().primaryKey(),
    template_id: uuid()
      .notNull()
      .references(() => examTemplates.id, { onDelete: "cascade" }),
    parent_id: uuid(),
    label: text().notNull(),
    order: integer().notNull().default(0),
    max_marks: numeric({ precision: 8, scale: 2 }),
    answer_type: text(),
    mark_scheme: jsonb().$type<{ type: string; [key: string]: unknown }>(),
    spec_ref: text(),
    is_container: boolean().notNull().default(false),
  },
  (table) => [
    // A part's parent belongs to the same template.
    unique("exam_questions_template_id_key").on(table.template_id, table.id),
    foreignKey({
      name: "exam_questions_parent_fk",
      columns: [table.template_id, table.parent_id],
      foreignColumns: [table.template_id, table.id],
    }).onDelete("cascade"),
    index("exam_questions_template_idx").on(table.template_id, table.order),
    check("exam_questions_not_own_parent", sql`${table.parent_id} is null or ${table.parent_id} <> ${table.id}`),
    check("exam_questions_max_marks_non_negative", sql`${table.max_marks} is null or ${table.max_marks} >= 0`),
    check("exam_questions_mark_scheme_typed", sql`${table.mark_scheme} is null or jsonb_typeof(${table.mark_scheme} -> 'type') = 'string'`),
  ],
);

/** Page-relative rectangles (0–1 on both axes) where a question is answered or given context. */
export const examResponseAreas = pgTable(
  "exam_response_areas",
  {
    id: uuid().primaryKey(),
    template_id: uuid()
      .notNull()
      .references(() => examTemplates.id, { onDelete: "cascade" }),
    question_id: uuid().notNull(),
    page: integer().notNull(),
    kind: responseAreaKind().notNull().default("response"),
    response_form: text(),
    x: doublePrecision().notNull(),
    y: doublePrecision().notNull(),
    width: doublePrecision().notNull(),
    height: doublePrecision().notNull(),
    /**
     * The tick boxes printed in a Multiple choice area (lib/rules/tick-boxes.ts: labels A–Z, page
     * fractions of the template page); null for a written area. Checked in full where the canvas is saved.
     */
    tick_boxes: jsonb().$type<TickBox[]>(),
  },
  (table) => [
    foreignKey({
      name: "exam_response_areas_question_fk",
      columns: [table.template_id, table.question_id],
      foreignColumns: [examQuestions.template_id, examQuestions.id],
    }).onDelete("cascade"),
    index("exam_response_areas_template_idx").on(table.template_id, table.page),
    check("exam_response_areas_page_positive", sql`${table.page} >= 1`),
    check(
      "exam_response_areas_inside_page",
      sql`${table.x} >= 0 and ${table.y} >= 0 and ${table.width} > 0 and ${table.height} > 0 and ${table.x} + ${table.width} <= 1 and ${table.y} + ${table.height} <= 1`,
    ),
    // A list of at most 26 boxes (A–Z), only in an area that is marked (a context area holds none).
    check(
      "exam_response_areas_tick_boxes_bounded",
      sql`${table.tick_boxes} is null or (jsonb_typeof(${table.tick_boxes}) = 'array' and jsonb_array_length(${table.tick_boxes}) <= 26 and ${table.kind} = 'response')`,
    ),
  ],
);

/** Where a question starts and ends on a page, as page-relative vertical positions. */
export const examQuestionBoundaries = pgTable(
  "exam_question_boundaries",
  {
    id: uuid().primaryKey(),
    template_id: uuid()
      .notNull()
      .references(() => examTemplates.id, { onDelete: "cascade" }),
    question_id: uuid().notNull(),
    page: integer().notNull(),
    top: doublePrecision().notNull(),
    bottom: doublePrecision().notNull(),
  },
  (table) => [
    foreignKey({
      name: "exam_question_boundaries_question_fk",
      columns: [table.template_id, table.question_id],
      foreignColumns: [examQuestions.template_id, examQuestions.id],
    }).onDelete("cascade"),
    check("exam_question_boundaries_page_positive", sql`${table.page} >= 1`),
    check("exam_question_boundaries_inside_page", sql`${table.top} >= 0 and ${table.bottom} <= 1 and ${table.top} < ${table.bottom}`),
  ],
);

export const examBatches = pgTable(
  "exam_batches",
  {
    id: uuid().primaryKey().defaultRandom(),
    template_id: uuid()
      .notNull()
      .references(() => examTemplates.id),
    class_id: uuid().references(() => classes.id, { onDelete: "set null" }),
    institute_id: uuid()
      .notNull()
      .references(() => institutes.id, { onDelete: "cascade" }),
    /** The owner: the teacher who created the batch. */
    teacher_id: uuid()
      .notNull()
      .references(() => users.id),
    title: text().notNull(),
    status: batchStatus().notNull().default("open"),
    /** The batch's code in the QR codes of its printed scripts (server/exam/intake/print-code.ts); set at the first print. */
    print_code: text().unique("exam_batches_print_code_key"),
    /** The number the batch's next script gets (exam_submissions.script_number; kept by app.number_new_script). */
    next_script_number: integer().notNull().default(1),
    /** Anonymous marking: reads of the batch show "Script 17", never a student's name or id (server/exam/anonymous.ts). */
    anonymous: boolean().notNull().default(false),
    /** Confident blanks read from the scan are given 0 automatically (marked_by 'blank'; server/exam/answers/). */
    auto_zero_blanks: boolean().notNull().default(false),
    /**
     * What every mark write checks, kept on the row it already reads (triggers of 0020): the batch has
     * markers (shared marking decides who writes), and it is signed off (it takes no marks).
     */
    has_markers: boolean().notNull().default(false),
    signed_off: boolean().notNull().default(false),
    /**
     * Results released to students (server/exam/returns/release.ts): when and by whom, which scripts
     * (`all`, or only `complete` ones: exam_submissions.released_at says which each time), and until when
     * students may ask for a review (null: no reviews). Null released_at: not released, or withdrawn.
     */
    released_at: timestamp({ withTimezone: true }),
    released_by: uuid().references(() => users.id, { onDelete: "set null" }),
    release_scope: text(),
    reviews_until: timestamp({ withTimezone: true }),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    archived_at: timestamp({ withTimezone: true }),
  },
  (table) => [
    index("exam_batches_institute_idx").on(table.institute_id, table.created_at),
    check("exam_batches_release_scope_known", sql`${table.release_scope} is null or ${table.release_scope} in ('all', 'complete')`),
    check("exam_batches_release_whole", sql`(${table.released_at} is null) = (${table.release_scope} is null)`),
    check("exam_batches_reviews_only_released", sql`${table.reviews_until} is null or ${table.released_at} is not null`),
  ],
);

export const examSubmissions = pgTable(
  "exam_submissions",
  {
    id: uuid().primaryKey().defaultRandom(),
    batch_id: uuid()
      .notNull()
      .references(() => examBatches.id, { onDelete: "cascade" }),
    /** Null for a scan that matched nobody yet. */
    student_id: uuid().references(() => users.id),
    /** Denormalised when the batch is created, so results read without joining people. */
    student_name: text(),
    status: submissionStatus().notNull().default("absent"),
    /** Storage path of the scan: exam-submissions/<batch_id>/<uuid>.pdf. */
    scan_url: text(),
    scan_file_id: uuid().references(() => files.id, { onDelete: "set null" }),
    qr_code: text(),
    matching_method: matchingMethod(),
    page_count: integer(),
    /**
     * "Script 17": the script's number in its batch, never reused. Given by a trigger (app.number_new_script) from
     * exam_batches.next_script_number when an insert leaves it out (the default 0 asks for it); the number printed on the script's
     * pages when it was printed. Roster scripts are numbered in a shuffled order, so a number says
     * nothing of the name (anonymous marking).
     */
    script_number: integer().notNull().default(0),
    /**
     * When a teacher marked the student absent (server/exam/absence.ts). Null for a student who simply
     * has no scan yet: the status `absent` alone (the contract's,
     * docs/spec/classroom-api.md "States and transitions") does not say which.
     */
    absence_marked_at: timestamp({ withTimezone: true }),
    /**
     * When this script was released to its student (set for every script in the batch's release scope,
     * cleared on withdrawal): the student's row-level security reads nothing of a script without it.
     */
    released_at: timestamp({ withTimezone: true }),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updated_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    // A student with a scan sat the paper: absence and a scan never go together.
    check("exam_submissions_absent_without_scan", sql`${table.absence_marked_at} is null or ${table.scan_url} is null`),
    unique("exam_submissions_batch_script_key").on(table.batch_id, table.script_number),
    check("exam_submissions_script_number_range", sql`${table.script_number} between 1 and 9999`),
    uniqueIndex("exam_submissions_batch_student_key")
      .on(table.batch_id, table.student_id)
      .where(sql`${table.student_id} is not null`),
    index("exam_submissions_batch_idx").on(table.batch_id, table.created_at),
    // A student's own submissions: the student branch of the submission and mark read policies.
    index("exam_submissions_student_idx").on(table.student_id).where(sql`${table.student_id} is not null`),
    // The file routes ask whether a file is a scan (server/exam/files.ts).
    index("exam_submissions_scan_file_idx").on(table.scan_file_id).where(sql`${table.scan_file_id} is not null`),
    // Only a student's script is released.
    check("exam_submissions_released_has_student", sql`${table.released_at} is null or ${table.student_id} is not null`),
  ],
);

export const examMarkEntries = pgTable(
  "exam_mark_entries",
  {
    id: uuid().primaryKey().defaultRandom(),
    submission_id: uuid()
      .notNull()
      .references(() => examSubmissions.id, { onDelete: "cascade" }),
    question_id: uuid()
      .notNull()
      .references(() => examQuestions.id, { onDelete: "cascade" }),
    /** Derived from the submission, never taken from a client. */
    batch_id: uuid()
      .notNull()
      .references(() => examBatches.id, { onDelete: "cascade" }),
    awarded_marks: numeric({ precision: 8, scale: 2 }),
    mark_scheme_detail: jsonb(),
    annotation_shape_ids: jsonb().$type<string[]>(),
    comment: text(),
    confirmed: boolean().notNull().default(false),
    marked_by: text().notNull().default("teacher"),
    marked_by_user_id: uuid().references(() => users.id, { onDelete: "set null" }),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updated_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    unique("exam_mark_entries_submission_question_key").on(table.submission_id, table.question_id),
    index("exam_mark_entries_batch_idx").on(table.batch_id),
    // The marks made of rubric items, per question: what a rubric edit re-scores (server/exam/rubrics.ts).
    index("exam_mark_entries_rubric_idx")
      .on(table.question_id)
      .where(sql`${table.mark_scheme_detail} ->> 'type' = 'rubric'`),
    // A teacher (any person), the tick reader (a decided tick question) or the blank rule (a confident blank given 0: exam_batches.auto_zero_blanks).
    check("exam_mark_entries_marked_by_known", sql`${table.marked_by} in ('teacher', 'ticks', 'blank')`),
    check("exam_mark_entries_awarded_non_negative", sql`${table.awarded_marks} is null or ${table.awarded_marks} >= 0`),
  ],
);
