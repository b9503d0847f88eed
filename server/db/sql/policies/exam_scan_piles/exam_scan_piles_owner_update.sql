-- Only a batch's owner changes its scanned piles.

CREATE POLICY exam_scan_piles_owner_update ON exam_scan_piles FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));
