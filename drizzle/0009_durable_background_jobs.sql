CREATE TABLE "background_jobs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"payload" jsonb NOT NULL,
	"dedupe_key" text NOT NULL,
	"owner_id" uuid,
	"state" text DEFAULT 'queued' NOT NULL,
	"run_at" timestamp with time zone DEFAULT now() NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer NOT NULL,
	"locked_by" text,
	"locked_until" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "background_jobs_attempts" CHECK (attempts >= 0 and max_attempts >= 1)
);
--> statement-breakpoint
ALTER TABLE "background_jobs" ADD CONSTRAINT "background_jobs_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "background_jobs_one_queued" ON "background_jobs" USING btree ("kind","dedupe_key") WHERE state = 'queued';--> statement-breakpoint
CREATE UNIQUE INDEX "background_jobs_one_running" ON "background_jobs" USING btree ("kind","dedupe_key") WHERE state = 'running';--> statement-breakpoint
CREATE INDEX "background_jobs_due" ON "background_jobs" USING btree ("run_at") WHERE state in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "background_jobs_latest" ON "background_jobs" USING btree ("kind","dedupe_key","created_at");--> statement-breakpoint

-- Hand-written below (the table above is drizzle-kit's): the state vocabulary, who may see a job, and
-- the one way an app user queues one.
ALTER TABLE "background_jobs" ADD CONSTRAINT "background_jobs_state" CHECK (state IN ('queued', 'running', 'done', 'failed'));--> statement-breakpoint

-- Queues a job in the caller's transaction (so the write that needs it and the job commit together),
-- with the service's rights: app users have no write grant on the table. A job of the same kind and
-- key already waiting absorbs this one: it takes the newer payload and the earlier start.
CREATE OR REPLACE FUNCTION app.enqueue_job(job_kind text, job_payload jsonb, job_dedupe_key text, job_run_at timestamptz, job_max_attempts integer)
  RETURNS uuid
  LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
    INSERT INTO background_jobs AS job (kind, payload, dedupe_key, owner_id, run_at, max_attempts)
    VALUES (job_kind, job_payload, job_dedupe_key, app.current_user_id(), job_run_at, job_max_attempts)
    ON CONFLICT (kind, dedupe_key) WHERE state = 'queued'
    DO UPDATE SET payload = excluded.payload,
      run_at = least(job.run_at, excluded.run_at),
      owner_id = coalesce(excluded.owner_id, job.owner_id),
      updated_at = now()
    RETURNING id
  $$;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.enqueue_job(text, jsonb, text, timestamptz, integer) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION app.enqueue_job(text, jsonb, text, timestamptz, integer) TO markbook_app;--> statement-breakpoint

-- A user reads the jobs queued for them (a template's owner sees its projection); workers are the service.
GRANT SELECT ON background_jobs TO markbook_app;--> statement-breakpoint
ALTER TABLE background_jobs ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
CREATE POLICY background_jobs_owner_read ON background_jobs FOR SELECT TO markbook_app
  USING (owner_id = app.current_user_id());
