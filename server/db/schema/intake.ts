import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgEnum, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { examBatches, examSubmissions, files } from "./exam";
import { users } from "./identity";

/**
 * Class-set intake: scripts printed with a code on every page, and piles of scanned pages read back
 * into their submissions. See docs/decisions.md, "Class-set intake".
 */

/**
 * One printed script of a batch: the number its QR codes carry. A student's script points at their
 * submission; a spare copy (printed for nobody) has none and is identified after the scan.
 * Numbers are given once per batch and never reused, so a reprint carries the same codes.
 */
export const examPrintedScripts = pgTable(
  "exam_printed_scripts",
  {
    batch_id: uuid()
      .notNull()
      .references(() => examBatches.id, { onDelete: "cascade" }),
    script_number: integer().notNull(),
    /** Null for a spare copy. */
    submission_id: uuid().references(() => examSubmissions.id, { onDelete: "set null" }),
    printed_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ name: "exam_printed_scripts_pkey", columns: [table.batch_id, table.script_number] }),
    uniqueIndex("exam_printed_scripts_submission_key")
      .on(table.submission_id)
      .where(sql`${table.submission_id} is not null`),
    check("exam_printed_scripts_number_range", sql`${table.script_number} between 1 and 9999`),
  ],
);

/** Where a scanned pile is in its reading: queued → reading → filing → done, or failed (with the reason). */
export const scanPileStatus = pgEnum("scan_pile_status", ["queued", "reading", "filing", "done", "failed"]);

/** One uploaded PDF of scanned pages, read by a background job (server/exam/intake/pile-job.ts). */
export const examScanPiles = pgTable(
  "exam_scan_piles",
  {
    id: uuid().primaryKey().defaultRandom(),
    batch_id: uuid()
      .notNull()
      .references(() => examBatches.id, { onDelete: "cascade" }),
    /** The PDF as uploaded; kept, so that every page can be traced back to it. */
    file_id: uuid()
      .notNull()
      .references(() => files.id),
    uploaded_by: uuid().references(() => users.id, { onDelete: "set null" }),
    original_name: text(),
    byte_size: bigint({ mode: "number" }).notNull(),
    /** Known once the job has opened the PDF. */
    page_count: integer(),
    pages_read: integer().notNull().default(0),
    status: scanPileStatus().notNull().default("queued"),
    /** Why the pile could not be read, in words for the teacher. */
    failure: text(),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    finished_at: timestamp({ withTimezone: true }),
  },
  (table) => [
    index("exam_scan_piles_batch_idx").on(table.batch_id, table.created_at),
    index("exam_scan_piles_file_idx").on(table.file_id),
    check("exam_scan_piles_pages_read_range", sql`${table.pages_read} >= 0 and (${table.page_count} is null or ${table.pages_read} <= ${table.page_count})`),
  ],
);

/**
 * Where a scanned page is: read but not yet filed (while its pile is being read), filed in a submission
 * at a page position (a student's, or a script still to identify: a submission without a student), set
 * aside as a duplicate of a filed page, or refused (a code of another batch or school). Every page of
 * every pile is in exactly one of these places.
 */
export const scanPagePlacement = pgEnum("scan_page_placement", ["reading", "filed", "duplicate", "refused"]);

export const examScanPages = pgTable(
  "exam_scan_pages",
  {
    id: uuid().primaryKey().defaultRandom(),
    pile_id: uuid()
      .notNull()
      .references(() => examScanPiles.id, { onDelete: "cascade" }),
    /** Denormalised from the pile, for row-level security and the batch's page lists. */
    batch_id: uuid()
      .notNull()
      .references(() => examBatches.id, { onDelete: "cascade" }),
    /** 1-based position in the pile's PDF. */
    pile_page: integer().notNull(),
    /** The page alone, as a one-page PDF: what submissions are assembled from. */
    file_id: uuid()
      .notNull()
      .references(() => files.id),
    /** The QR text as read, or null when no code was read. */
    code: text(),
    /** From a valid code of this batch: the printed script and its page. */
    script_number: integer(),
    printed_page: integer(),
    /** Clockwise degrees that turn the scan upright (from the code's orientation; 0 without a code). */
    rotation: integer().notNull().default(0),
    placement: scanPagePlacement().notNull(),
    submission_id: uuid().references(() => examSubmissions.id),
    /** Position in the submission's assembled PDF, 1-based. */
    page_number: integer(),
    /** A duplicate: the filed page it repeats. */
    duplicate_of: uuid(),
    /** A refused or duplicate page: why, in words for the teacher. */
    note: text(),
    /**
     * The page's tick boxes and written areas as the pile pass read them beside its code (issue 36: the
     * AreasReading of server/exam/ticks/reading.ts, read back through storedAreaReading); null when the
     * page was not read there (no code of this batch, no areas on its page, a pile read before).
     */
    area_reading: jsonb().$type<Record<string, unknown>>(),
    /** The template page `area_reading` was read against (the page its code names). */
    area_reading_page: integer(),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updated_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex("exam_scan_pages_pile_page_key").on(table.pile_id, table.pile_page),
    // One page per position of a submission: a deferred unique constraint written by hand in
    // drizzle/0013, so that a move can renumber a submission's pages inside one transaction.
    index("exam_scan_pages_batch_idx").on(table.batch_id, table.placement),
    index("exam_scan_pages_file_idx").on(table.file_id),
    check(
      "exam_scan_pages_one_place",
      sql`(${table.placement} = 'filed') = (${table.submission_id} is not null and ${table.page_number} is not null)`,
    ),
    check("exam_scan_pages_rotation_quarter", sql`${table.rotation} in (0, 90, 180, 270)`),
    // A reading and its page together; a page of a paper (print-code.ts: 1–999); a reading of at most a megabyte.
    check(
      "exam_scan_pages_area_reading_bounded",
      sql`(${table.area_reading} is null) = (${table.area_reading_page} is null) and (${table.area_reading_page} is null or ${table.area_reading_page} between 1 and 999) and (${table.area_reading} is null or (jsonb_typeof(${table.area_reading}) = 'object' and octet_length(${table.area_reading}::text) <= 1048576))`,
    ),
    check("exam_scan_pages_positions_positive", sql`${table.pile_page} >= 1 and (${table.page_number} is null or ${table.page_number} >= 1)`),
  ],
);
