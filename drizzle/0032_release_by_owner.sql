-- Written by hand: only a batch's owner releases or withdraws its scripts (issue 35, item 2). The
-- submissions' update policy lets every writer of a batch (its markers, its heads) change a submission,
-- and released_at is a column of it: the application releases only as the owner
-- (server/exam/returns/release.ts), and now the database refuses anyone else's change of released_at too.
-- Outside a user's transaction (the service: seeding, jobs) it is not asked.
CREATE OR REPLACE FUNCTION app.guard_script_release() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  DECLARE
    caller uuid := app.current_user_id();
  BEGIN
    IF caller IS NOT NULL AND NOT EXISTS (SELECT 1 FROM exam_batches b WHERE b.id = NEW.batch_id AND b.teacher_id = caller) THEN
      RAISE EXCEPTION 'only the batch''s owner releases its scripts' USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
  END
  $$;--> statement-breakpoint
CREATE TRIGGER exam_submissions_guard_release BEFORE UPDATE ON exam_submissions
  FOR EACH ROW WHEN (OLD.released_at IS DISTINCT FROM NEW.released_at) EXECUTE FUNCTION app.guard_script_release();
