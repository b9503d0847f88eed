-- A remembered roster CSV mapping is read and written by the school's admins only.

CREATE POLICY roster_mappings_admin ON roster_mappings FOR ALL TO markbook_app
  USING (institute_id IN (SELECT app.my_admin_institute_ids()))
  WITH CHECK (institute_id IN (SELECT app.my_admin_institute_ids()));
