-- Staff who see a batch read its marks (a mark carries its batch, so this is an index lookup, not a
-- scan of the visible submissions). A student reads the marks of their own released scripts.

CREATE POLICY exam_mark_entries_read ON exam_mark_entries FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches) OR submission_id IN (SELECT app.my_released_submission_ids()));;
