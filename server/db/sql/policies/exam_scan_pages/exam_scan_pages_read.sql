-- Staff who see a batch read the pages of its scanned piles. Students see none of it: a student
-- reads their own submission's assembled scan, never the pile.

CREATE POLICY exam_scan_pages_read ON exam_scan_pages FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));
