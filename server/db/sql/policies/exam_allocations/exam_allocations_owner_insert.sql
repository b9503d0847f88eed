-- A batch's owner allocates its questions and scripts to its markers.

CREATE POLICY exam_allocations_owner_insert ON exam_allocations FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));
