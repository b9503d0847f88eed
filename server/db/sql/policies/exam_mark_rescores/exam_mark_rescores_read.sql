-- A rubric re-score's audit rows are read with the marks (staff of the batch); only
-- app.rescore_rubric_marks writes them.

CREATE POLICY exam_mark_rescores_read ON exam_mark_rescores FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));
