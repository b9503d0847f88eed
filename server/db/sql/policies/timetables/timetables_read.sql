-- Everyone in a school reads its timetables.

CREATE POLICY timetables_read ON timetables FOR SELECT TO markbook_app
  USING (institute_id IN (SELECT app.my_institute_ids()));
