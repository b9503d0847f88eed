-- The batch's writers draw the first marking's annotations, as themselves; any staff member who sees the
-- batch draws their own blind second marking's (as any second-marks; the application asks the script to be
-- in the moderation sample).

CREATE POLICY exam_annotations_writer_insert ON exam_annotations FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND author_id = app.current_user_id()
    AND (layer = 'second_marking' OR app.may_write_batch(batch_id)));
