-- Staff who see a batch read its review requests; a student reads their own, of released scripts.

CREATE POLICY exam_review_requests_read ON exam_review_requests FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches)
    OR (student_id = app.current_user_id() AND submission_id IN (SELECT app.my_released_submission_ids())));;
