-- Staff who see a batch read its sign-offs.

CREATE POLICY exam_batch_sign_offs_read ON exam_batch_sign_offs FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));
