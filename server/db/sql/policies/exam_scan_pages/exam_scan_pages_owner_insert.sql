-- Only a batch's owner adds pages to its piles (reading piles and filing their pages is a background
-- job that runs as the service). A page's batch is its pile's (app.scan_page_batch_from_pile).

CREATE POLICY exam_scan_pages_owner_insert ON exam_scan_pages FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));
