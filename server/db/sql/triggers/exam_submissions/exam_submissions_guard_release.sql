-- Only the batch's owner releases or withdraws a script (app.guard_script_release).

CREATE TRIGGER exam_submissions_guard_release BEFORE UPDATE ON exam_submissions
  FOR EACH ROW WHEN (OLD.released_at IS DISTINCT FROM NEW.released_at) EXECUTE FUNCTION app.guard_script_release();
