-- Staff who see a batch read its marks (a mark carries its batch, so this is an index lookup, not a
-- scan of the visible submissions). Students read no marks until results are released to them.

CREATE POLICY exam_mark_entries_read ON exam_mark_entries FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));
