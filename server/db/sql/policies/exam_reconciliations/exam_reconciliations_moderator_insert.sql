-- A moderator of the batch (its owner or a department head of its school) reconciles a mark, as
-- themselves; the final mark then becomes theirs to write (app.mark_write_refusal).

CREATE POLICY exam_reconciliations_moderator_insert ON exam_reconciliations FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT app.my_moderated_batch_ids()) AND reconciled_by = app.current_user_id());
