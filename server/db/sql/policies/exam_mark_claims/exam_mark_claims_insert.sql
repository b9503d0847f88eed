-- A caller claims for themselves only a pair of their allocation, of a submission of the claim's batch.
-- The check is on the proposed row, before the insert meets a live claim of another marker, so it leaves
-- claims out: the ON CONFLICT clause decides between claims (the primary key makes two claims at once
-- one winner).

CREATE POLICY exam_mark_claims_insert ON exam_mark_claims FOR INSERT TO markbook_app
  WITH CHECK (
    marker_id = app.current_user_id()
    AND submission_id IN (SELECT id FROM exam_submissions s WHERE s.batch_id = exam_mark_claims.batch_id)
    AND app.mark_write_refusal(batch_id, submission_id, question_id) IS DISTINCT FROM 'allocation'
  );
