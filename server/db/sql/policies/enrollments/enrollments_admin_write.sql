-- School admins enrol and unenrol students in the classes of their school.

CREATE POLICY enrollments_admin_write ON enrollments FOR ALL TO markbook_app
  USING (class_id IN (SELECT id FROM classes WHERE institute_id IN (SELECT app.my_admin_institute_ids())))
  WITH CHECK (class_id IN (SELECT id FROM classes WHERE institute_id IN (SELECT app.my_admin_institute_ids())));
