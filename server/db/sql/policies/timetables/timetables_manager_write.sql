-- Timetable managers (school admins and department heads) change their school's timetables.

CREATE POLICY timetables_manager_write ON timetables FOR ALL TO markbook_app
  USING (institute_id IN (SELECT app.my_timetable_manager_institute_ids()))
  WITH CHECK (institute_id IN (SELECT app.my_timetable_manager_institute_ids()));
