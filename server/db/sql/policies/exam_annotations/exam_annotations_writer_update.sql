-- The batch's writers move and edit its annotations.

CREATE POLICY exam_annotations_writer_update ON exam_annotations FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches) AND app.may_write_batch(batch_id))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND app.may_write_batch(batch_id));;
