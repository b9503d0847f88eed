-- A batch's owner deletes a submission without a student (an unmatched scan of their batch, once
-- assigned: server/exam/assign-scan.ts). Roster submissions (with a student) are never deleted by the app.

CREATE POLICY exam_submissions_owner_delete_unmatched ON exam_submissions FOR DELETE TO markbook_app
  USING (student_id IS NULL AND batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));
