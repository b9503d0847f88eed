-- Staff who see a batch read what was read from its scripts' scans (as they read its marks); students
-- never (exam_batches is staff only).

CREATE POLICY exam_answer_readings_read ON exam_answer_readings FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));
