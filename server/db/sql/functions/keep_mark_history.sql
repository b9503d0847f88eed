-- Trigger of exam_mark_entries: every change of a recorded mark goes to exam_mark_history with who
-- changed it and the reason the transaction set (app.mark_change_reason: a review's answer, a
-- moderator's reconciliation). SECURITY DEFINER: the history is written by no one else.

CREATE OR REPLACE FUNCTION app.keep_mark_history() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    INSERT INTO exam_mark_history (batch_id, submission_id, question_id, marks_before, marks_after, changed_by, reason)
      VALUES (NEW.batch_id, NEW.submission_id, NEW.question_id, OLD.awarded_marks, NEW.awarded_marks, app.current_user_id(),
        nullif(current_setting('app.mark_change_reason', true), ''));
    RETURN NULL;
  END
  $$;
