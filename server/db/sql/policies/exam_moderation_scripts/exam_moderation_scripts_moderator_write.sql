-- A moderator of the batch (its owner or a department head of its school) chooses the scripts of its
-- sample.

CREATE POLICY exam_moderation_scripts_moderator_write ON exam_moderation_scripts FOR ALL TO markbook_app
  USING (batch_id IN (SELECT app.my_moderated_batch_ids()))
  WITH CHECK (batch_id IN (SELECT app.my_moderated_batch_ids()));
