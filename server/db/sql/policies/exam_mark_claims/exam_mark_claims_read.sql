-- Staff who see a batch read its claims (who is marking what).

CREATE POLICY exam_mark_claims_read ON exam_mark_claims FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));
