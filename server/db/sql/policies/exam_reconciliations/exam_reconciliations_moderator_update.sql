-- A moderator of the batch changes a reconciliation, which becomes theirs.

CREATE POLICY exam_reconciliations_moderator_update ON exam_reconciliations FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT app.my_moderated_batch_ids()))
  WITH CHECK (batch_id IN (SELECT app.my_moderated_batch_ids()) AND reconciled_by = app.current_user_id());
