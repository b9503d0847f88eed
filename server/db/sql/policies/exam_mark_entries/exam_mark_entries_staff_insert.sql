-- Staff who see a batch write a mark of it as themselves; whether they are a writer of the batch is
-- the restrictive exam_mark_entries_shared_insert's question.

CREATE POLICY exam_mark_entries_staff_insert ON exam_mark_entries FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND marked_by_user_id = app.current_user_id());
