-- A user reads the background jobs queued for them (a template's owner sees its projection). Workers
-- are the service; app users queue jobs only through app.enqueue_job.

CREATE POLICY background_jobs_owner_read ON background_jobs FOR SELECT TO markbook_app
  USING (owner_id = app.current_user_id());
