-- Only a batch's owner adds submissions (scripts) to it.

CREATE POLICY exam_submissions_owner_insert ON exam_submissions FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));
