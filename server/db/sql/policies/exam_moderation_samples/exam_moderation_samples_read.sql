-- Staff who see a batch read its moderation sample.

CREATE POLICY exam_moderation_samples_read ON exam_moderation_samples FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));
