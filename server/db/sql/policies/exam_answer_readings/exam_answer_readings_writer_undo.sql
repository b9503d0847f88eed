-- The batch's writers mark an automatic mark undone (the column grant allows only automatic_mark_undone);
-- readings are otherwise written by the service (the job that reads a script's pages).

CREATE POLICY exam_answer_readings_writer_undo ON exam_answer_readings FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches) AND app.may_write_batch(batch_id))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND app.may_write_batch(batch_id));
