-- A student reads their own enrollments; staff read every enrollment of their school's classes.

CREATE POLICY enrollments_read ON enrollments FOR SELECT TO markbook_app
  USING (
    student_id = app.current_user_id()
    OR class_id IN (SELECT id FROM classes WHERE institute_id IN (SELECT app.my_staff_institute_ids()))
  );
