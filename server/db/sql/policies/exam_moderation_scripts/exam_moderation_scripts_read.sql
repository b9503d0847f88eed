-- Staff who see a batch read which scripts its moderation sample holds.

CREATE POLICY exam_moderation_scripts_read ON exam_moderation_scripts FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));
