-- Assigning an unmatched scan to a student (server/exam/assign-scan.ts): the batch's owner moves the
-- marks of a student-less submission of their batch to another submission of the same batch, and the
-- marks keep who gave them (app.mark_is_on_my_unmatched_scan).

CREATE POLICY exam_mark_entries_owner_moves_unmatched ON exam_mark_entries FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()))
  WITH CHECK (
    app.mark_is_on_my_unmatched_scan(id)
    AND submission_id IN (SELECT s.id FROM exam_submissions s WHERE s.batch_id = exam_mark_entries.batch_id)
  );
