-- Staff who see a batch read its markers (shared marking).

CREATE POLICY exam_batch_markers_read ON exam_batch_markers FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));
