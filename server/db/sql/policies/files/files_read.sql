-- Staff read the files of their school, and everyone reads the installation's files (institute_id null).

CREATE POLICY files_read ON files FOR SELECT TO markbook_app
  USING (institute_id IS NULL OR institute_id IN (SELECT app.my_staff_institute_ids()));
