-- A student asks for a review of their released script while the batch's reviews are open.

CREATE POLICY exam_review_requests_student_insert ON exam_review_requests FOR INSERT TO markbook_app
  WITH CHECK (student_id = app.current_user_id() AND status = 'open'
    AND submission_id IN (SELECT app.my_released_submission_ids())
    AND EXISTS (SELECT 1 FROM app.my_released_batches() rb
      WHERE rb.id = exam_review_requests.batch_id AND rb.reviews_until > now()));;
