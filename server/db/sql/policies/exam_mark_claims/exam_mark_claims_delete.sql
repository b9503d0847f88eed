-- A claim is released by its marker or by the batch's owner.

CREATE POLICY exam_mark_claims_delete ON exam_mark_claims FOR DELETE TO markbook_app
  USING (marker_id = app.current_user_id() OR batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));
