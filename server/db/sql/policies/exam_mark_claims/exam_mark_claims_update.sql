-- Taking over an expired claim is an update of the row (INSERT … ON CONFLICT DO UPDATE … WHERE expired
-- or the caller's): as for a new claim, the row becomes the caller's, on a pair of their allocation, of a
-- submission of the claim's batch.

CREATE POLICY exam_mark_claims_update ON exam_mark_claims FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches))
  WITH CHECK (
    marker_id = app.current_user_id()
    AND submission_id IN (SELECT id FROM exam_submissions s WHERE s.batch_id = exam_mark_claims.batch_id)
    AND app.mark_write_refusal(batch_id, submission_id, question_id) IS DISTINCT FROM 'allocation'
  );
