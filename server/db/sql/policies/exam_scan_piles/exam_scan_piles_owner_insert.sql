-- Only a batch's owner uploads a scanned pile to it, as themselves.

CREATE POLICY exam_scan_piles_owner_insert ON exam_scan_piles FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()) AND uploaded_by = app.current_user_id());
