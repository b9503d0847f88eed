-- A batch's owner removes its allocations.

CREATE POLICY exam_allocations_owner_delete ON exam_allocations FOR DELETE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));
