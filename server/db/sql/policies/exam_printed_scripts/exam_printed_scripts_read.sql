-- Staff who see a batch read its printed scripts.

CREATE POLICY exam_printed_scripts_read ON exam_printed_scripts FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));
