-- School admins change the users of their own school.

CREATE POLICY users_admin_update ON users FOR UPDATE TO markbook_app
  USING (school_id IN (SELECT app.my_admin_institute_ids()))
  WITH CHECK (school_id IN (SELECT app.my_admin_institute_ids()));
