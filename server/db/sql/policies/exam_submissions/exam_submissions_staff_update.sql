-- A submission is changed only by a writer of its batch (app.may_write_batch: its owner, a department
-- head of its school, an invited marker). WITH CHECK only: a colleague who sees the batch may still lock
-- a submission FOR UPDATE, as a blind second mark does, but not change it.

CREATE POLICY exam_submissions_staff_update ON exam_submissions FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND app.may_write_batch(batch_id));
