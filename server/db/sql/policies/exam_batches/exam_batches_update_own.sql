-- Only a batch's owner changes the batch row (triggers that keep its counters and states run as
-- SECURITY DEFINER).

CREATE POLICY exam_batches_update_own ON exam_batches FOR UPDATE TO markbook_app
  USING (teacher_id = app.current_user_id())
  WITH CHECK (teacher_id = app.current_user_id());
