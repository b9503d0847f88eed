-- A moderator of the batch (its owner or a department head of its school) chooses its sample, as
-- themselves.

CREATE POLICY exam_moderation_samples_moderator_write ON exam_moderation_samples FOR ALL TO markbook_app
  USING (batch_id IN (SELECT app.my_moderated_batch_ids()))
  WITH CHECK (batch_id IN (SELECT app.my_moderated_batch_ids()) AND chosen_by = app.current_user_id());
