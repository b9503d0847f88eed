-- A batch's owner invites markers, as themselves, and only active staff of the batch's school
-- (app.is_active_staff_of_batch_school).

CREATE POLICY exam_batch_markers_owner_insert ON exam_batch_markers FOR INSERT TO markbook_app
  WITH CHECK (
    added_by = app.current_user_id()
    AND batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id())
    AND app.is_active_staff_of_batch_school(user_id, batch_id)
  );
