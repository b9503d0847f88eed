-- The members of a class's school read its other teachers.

CREATE POLICY class_teachers_read ON class_teachers FOR SELECT TO markbook_app
  USING (class_id IN (SELECT id FROM classes WHERE institute_id IN (SELECT app.my_institute_ids())));
