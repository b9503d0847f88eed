-- Written by hand: the mark history is written once per statement, not once per row. A rubric edit
-- re-scores thousands of marks in one UPDATE; a row trigger inserted their history one row at a time and
-- doubled the edit's time (bench:exam). The statement trigger reads the statement's old and new rows
-- (transition tables) and inserts every changed mark's history in one INSERT … SELECT. Transition tables
-- cannot go with a column list, so it runs after every UPDATE of exam_mark_entries and keeps only the
-- rows whose awarded_marks changed.
DROP TRIGGER exam_mark_entries_keep_history ON exam_mark_entries;--> statement-breakpoint
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
  $$;--> statement-breakpoint
CREATE TRIGGER exam_mark_entries_keep_history AFTER UPDATE ON exam_mark_entries
  REFERENCING OLD TABLE AS marks_before NEW TABLE AS changed_marks
  FOR EACH STATEMENT EXECUTE FUNCTION app.keep_mark_history();
