-- Staff who see a batch change a mark of it, which becomes theirs (marked_by_user_id); whether they are
-- a writer of the batch is the restrictive exam_mark_entries_shared_update's question.

CREATE POLICY exam_mark_entries_staff_update ON exam_mark_entries FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND marked_by_user_id = app.current_user_id());
