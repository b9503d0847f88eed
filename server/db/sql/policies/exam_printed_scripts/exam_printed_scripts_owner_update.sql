-- A batch's owner changes its printed scripts.

CREATE POLICY exam_printed_scripts_owner_update ON exam_printed_scripts FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));
