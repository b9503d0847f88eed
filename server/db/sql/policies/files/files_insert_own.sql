-- A member of staff stores a file of their school, as its owner.

CREATE POLICY files_insert_own ON files FOR INSERT TO markbook_app
  WITH CHECK (owner_id = app.current_user_id() AND institute_id IN (SELECT app.my_staff_institute_ids()));
