-- Only a template's owner changes it, and it stays in a school where they are staff.

CREATE POLICY exam_templates_update_own ON exam_templates FOR UPDATE TO markbook_app
  USING (owner_id = app.current_user_id())
  WITH CHECK (owner_id = app.current_user_id() AND institute_id IN (SELECT app.my_staff_institute_ids()));
