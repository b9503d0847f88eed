-- The batch's writers delete the first marking's annotations; a second marking's shape, its author only.

CREATE POLICY exam_annotations_writer_delete ON exam_annotations FOR DELETE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches)
    AND ((layer = 'marking' AND app.may_write_batch(batch_id)) OR (layer = 'second_marking' AND author_id = app.current_user_id())));
