-- Staff who see a batch give second marks of it as themselves.

CREATE POLICY exam_second_marks_marker_insert ON exam_second_marks FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND marker_id = app.current_user_id());
