-- Only a batch's owner moves or identifies the pages of its piles.

CREATE POLICY exam_scan_pages_owner_update ON exam_scan_pages FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));
