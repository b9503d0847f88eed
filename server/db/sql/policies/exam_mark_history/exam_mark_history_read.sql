-- Staff who see a batch read the history of its marks.

CREATE POLICY exam_mark_history_read ON exam_mark_history FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));;
