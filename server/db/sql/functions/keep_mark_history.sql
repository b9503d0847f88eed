-- Trigger of exam_mark_entries, once per UPDATE statement: every mark whose awarded_marks the statement
-- changed goes to exam_mark_history, in one INSERT … SELECT over the statement's old and new rows, with who
-- changed it and the reason the transaction set (app.mark_change_reason: a review's answer). SECURITY
-- DEFINER: the history is written by no one else. Per statement, not per row: a rubric edit re-scores
-- thousands of marks in one UPDATE.

CREATE OR REPLACE FUNCTION app.keep_mark_history() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    INSERT INTO exam_mark_history (batch_id, submission_id, question_id, marks_before, marks_after, changed_by, reason)
      SELECT n.batch_id, n.submission_id, n.question_id, o.awarded_marks, n.awarded_marks, app.current_user_id(),
        nullif(current_setting('app.mark_change_reason', true), '')
      FROM changed_marks n JOIN marks_before o ON o.id = n.id
      WHERE o.awarded_marks IS DISTINCT FROM n.awarded_marks;
    RETURN NULL;
  END
  $$;
