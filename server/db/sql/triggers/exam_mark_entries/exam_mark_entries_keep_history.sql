-- Every change of a recorded mark is kept, whichever code path changes it (app.keep_mark_history).

CREATE TRIGGER exam_mark_entries_keep_history AFTER UPDATE OF awarded_marks ON exam_mark_entries
  FOR EACH ROW WHEN (OLD.awarded_marks IS DISTINCT FROM NEW.awarded_marks) EXECUTE FUNCTION app.keep_mark_history();;
