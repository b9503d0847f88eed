-- A member of staff creates a template of their school, owned by themselves.

CREATE POLICY exam_templates_insert_own ON exam_templates FOR INSERT TO markbook_app
  WITH CHECK (owner_id = app.current_user_id() AND institute_id IN (SELECT app.my_staff_institute_ids()));
