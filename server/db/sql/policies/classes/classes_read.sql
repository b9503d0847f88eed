-- Everyone in a school reads its classes.

CREATE POLICY classes_read ON classes FOR SELECT TO markbook_app
  USING (institute_id IN (SELECT app.my_institute_ids()));
