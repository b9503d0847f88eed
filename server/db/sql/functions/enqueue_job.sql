-- Queues a background job (server/jobs) in the caller's transaction, so the write that needs it and the
-- job commit together, with the service's rights: app users have no write grant on background_jobs. A
-- job of the same kind and key already waiting absorbs this one: it takes the newer payload and the
-- earlier start.

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
  $$;
REVOKE ALL ON FUNCTION app.enqueue_job(text, jsonb, text, timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app.enqueue_job(text, jsonb, text, timestamptz, integer) TO markbook_app;
