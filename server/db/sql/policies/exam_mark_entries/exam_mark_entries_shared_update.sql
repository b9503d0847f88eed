-- RESTRICTIVE: whatever else lets the caller change a mark (staff of the school, the owner moving an
-- unmatched scan's marks), the pair must be theirs to write (app.mark_write_refusal).

CREATE POLICY exam_mark_entries_shared_update ON exam_mark_entries AS RESTRICTIVE FOR UPDATE TO markbook_app
  USING (true)
  WITH CHECK (app.mark_write_refusal(batch_id, submission_id, question_id) IS NULL);
