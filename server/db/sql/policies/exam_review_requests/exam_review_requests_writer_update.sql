-- The batch's writers answer its review requests.

CREATE POLICY exam_review_requests_writer_update ON exam_review_requests FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND app.may_write_batch(batch_id));;
