-- A marked absence is cleared when a scan or a mark arrives, whichever code path writes the row
-- (app.clear_absence_when_present).

CREATE TRIGGER exam_submissions_clear_absence BEFORE UPDATE ON exam_submissions
  FOR EACH ROW WHEN (NEW.absence_marked_at IS NOT NULL) EXECUTE FUNCTION app.clear_absence_when_present();
