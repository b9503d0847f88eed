-- A batch's owner removes its markers.

CREATE POLICY exam_batch_markers_owner_delete ON exam_batch_markers FOR DELETE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));
