-- The batch's writers delete its annotations.

CREATE POLICY exam_annotations_writer_delete ON exam_annotations FOR DELETE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches) AND app.may_write_batch(batch_id));;
