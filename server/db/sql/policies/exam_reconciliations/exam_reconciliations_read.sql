-- Staff who see a batch read its reconciliations (a moderator's final marks).

CREATE POLICY exam_reconciliations_read ON exam_reconciliations FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));
