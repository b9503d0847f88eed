-- Every change of a recorded mark is kept, whichever code path changes it (app.keep_mark_history), once
-- per statement with its old and new rows.

CREATE TRIGGER exam_mark_entries_keep_history AFTER UPDATE ON exam_mark_entries
  REFERENCING OLD TABLE AS marks_before NEW TABLE AS changed_marks
  FOR EACH STATEMENT EXECUTE FUNCTION app.keep_mark_history();
