-- School admins create users in their own school (server/identity/people.ts, roster-import.ts).

CREATE POLICY users_admin_insert ON users FOR INSERT TO markbook_app
  WITH CHECK (school_id IN (SELECT app.my_admin_institute_ids()));
