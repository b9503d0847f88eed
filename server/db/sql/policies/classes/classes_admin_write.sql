-- School admins create, change and delete the classes of their school.

CREATE POLICY classes_admin_write ON classes FOR ALL TO markbook_app
  USING (institute_id IN (SELECT app.my_admin_institute_ids()))
  WITH CHECK (institute_id IN (SELECT app.my_admin_institute_ids()));
