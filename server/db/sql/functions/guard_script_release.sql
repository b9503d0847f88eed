-- Trigger of exam_submissions: only the batch's owner changes a script's released_at (releases or
-- withdraws it); the service (no caller) is not asked. The submissions' update policy lets every writer
-- change a submission, so the column needs its own rule.

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
  $$;
