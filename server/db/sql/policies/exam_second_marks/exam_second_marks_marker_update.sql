-- Staff who see a batch change a second mark of it, which becomes theirs.

CREATE POLICY exam_second_marks_marker_update ON exam_second_marks FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND marker_id = app.current_user_id());
