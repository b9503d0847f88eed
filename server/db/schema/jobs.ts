import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { users } from "./identity";

export const jobStates = ["queued", "running", "done", "failed"] as const;
export type JobState = (typeof jobStates)[number];

/**
 * Durable background jobs (server/jobs): every app process claims due rows with FOR UPDATE SKIP LOCKED
 * under a lease, so work survives the process that queued or started it. Written by the service only;
 * app users queue jobs through app.enqueue_job (server/db/sql/functions/) and read the jobs queued for them.
 */
export const backgroundJobs = pgTable(
  "background_jobs",
  {
    id: uuid().primaryKey().defaultRandom(),
    kind: text().notNull(),
    payload: jsonb().$type<unknown>().notNull(),
    /** Jobs of one kind and key are one piece of work: at most one waits, at most one runs. */
    dedupe_key: text().notNull(),
    /** The user the job was queued for (who may see its state); null for the service's own jobs. */
    owner_id: uuid().references(() => users.id, { onDelete: "set null" }),
    state: text({ enum: jobStates }).notNull().default("queued"),
    run_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    attempts: integer().notNull().default(0),
    max_attempts: integer().notNull(),
    /** The worker holding the job while it runs, and until when; after that another may claim it. */
    locked_by: text(),
    locked_until: timestamp({ withTimezone: true }),
    last_error: text(),
    created_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    updated_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    finished_at: timestamp({ withTimezone: true }),
  },
  (table) => [
    uniqueIndex("background_jobs_one_queued").on(table.kind, table.dedupe_key).where(sql`state = 'queued'`),
    uniqueIndex("background_jobs_one_running").on(table.kind, table.dedupe_key).where(sql`state = 'running'`),
    index("background_jobs_due").on(table.run_at).where(sql`state in ('queued', 'running')`),
    index("background_jobs_latest").on(table.kind, table.dedupe_key, table.created_at),
    check("background_jobs_attempts", sql`attempts >= 0 and max_attempts >= 1`),
  ],
);
