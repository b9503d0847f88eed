-- Timetable managers (school admins and department heads) change the entries of their school's
-- timetables.

CREATE POLICY timetable_entries_manager_write ON timetable_entries FOR ALL TO markbook_app
  USING (timetable_id IN (SELECT id FROM timetables WHERE institute_id IN (SELECT app.my_timetable_manager_institute_ids())))
  WITH CHECK (timetable_id IN (SELECT id FROM timetables WHERE institute_id IN (SELECT app.my_timetable_manager_institute_ids())));
