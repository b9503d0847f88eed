-- A department head of a batch's school reopens its sign-off, as themselves.

CREATE POLICY exam_batch_sign_offs_head_reopen ON exam_batch_sign_offs FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches WHERE institute_id IN (SELECT app.my_head_institute_ids())))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE institute_id IN (SELECT app.my_head_institute_ids())) AND reopened_by = app.current_user_id());
