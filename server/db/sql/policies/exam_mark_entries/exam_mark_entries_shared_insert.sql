-- RESTRICTIVE: whatever else lets the caller write a mark, the pair must be theirs to write
-- (app.mark_write_refusal: a writer of the batch, within their allocation, no other marker's claim).

CREATE POLICY exam_mark_entries_shared_insert ON exam_mark_entries AS RESTRICTIVE FOR INSERT TO markbook_app
  WITH CHECK (app.mark_write_refusal(batch_id, submission_id, question_id) IS NULL);
