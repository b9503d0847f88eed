-- Staff who see a batch read its submissions; a student reads their own once it is released.

CREATE POLICY exam_submissions_read ON exam_submissions FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches) OR id IN (SELECT app.my_released_submission_ids()));;
