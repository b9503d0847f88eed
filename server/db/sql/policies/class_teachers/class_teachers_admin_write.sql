-- A class's other teachers are written by the school admins of its school, and only staff of the
-- class's school can be one (the database says no even if a domain function forgot to).

CREATE POLICY class_teachers_admin_write ON class_teachers FOR ALL TO markbook_app
  USING (class_id IN (SELECT id FROM classes WHERE institute_id IN (SELECT app.my_admin_institute_ids())))
  WITH CHECK (
    class_id IN (SELECT id FROM classes WHERE institute_id IN (SELECT app.my_admin_institute_ids()))
    AND EXISTS (
      SELECT 1 FROM classes c JOIN institute_memberships m ON m.institute_id = c.institute_id
      WHERE c.id = class_teachers.class_id AND m.user_id = class_teachers.teacher_id AND m.role <> 'student'
    )
  );
