-- A department head of a batch's school signs it off, as themselves (a signed-off batch is read-only:
-- exam_batches.signed_off, kept by app.keep_batch_signed_off).

CREATE POLICY exam_batch_sign_offs_head_insert ON exam_batch_sign_offs FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE institute_id IN (SELECT app.my_head_institute_ids())) AND signed_off_by = app.current_user_id());
