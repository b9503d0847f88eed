-- A user reads the institutes they belong to.

CREATE POLICY institutes_read ON institutes FOR SELECT TO markbook_app
  USING (id IN (SELECT app.my_institute_ids()));
