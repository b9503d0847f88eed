-- A member of staff creates a batch of their school, owned by themselves.

CREATE POLICY exam_batches_insert_own ON exam_batches FOR INSERT TO markbook_app
  WITH CHECK (teacher_id = app.current_user_id() AND institute_id IN (SELECT app.my_staff_institute_ids()));
