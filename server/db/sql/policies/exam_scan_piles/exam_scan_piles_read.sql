-- Staff who see a batch read its scanned piles.

CREATE POLICY exam_scan_piles_read ON exam_scan_piles FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));
