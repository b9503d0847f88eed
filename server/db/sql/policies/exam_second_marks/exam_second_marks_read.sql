-- Second marks (moderation) are read by the batch's moderators and by their own marker only: the first
-- marker never reads the second mark of their script.

CREATE POLICY exam_second_marks_read ON exam_second_marks FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches) AND (marker_id = app.current_user_id() OR batch_id IN (SELECT app.my_moderated_batch_ids())));
