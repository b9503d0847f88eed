-- A batch's owner prints its scripts.

CREATE POLICY exam_printed_scripts_owner_insert ON exam_printed_scripts FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));
