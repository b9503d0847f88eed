-- Staff who see a batch read its submissions. Students read no submissions until results are released
-- to them.

CREATE POLICY exam_submissions_read ON exam_submissions FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));
