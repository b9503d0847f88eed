-- The batch's writers annotate, as themselves.

CREATE POLICY exam_annotations_writer_insert ON exam_annotations FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND app.may_write_batch(batch_id) AND author_id = app.current_user_id());;
