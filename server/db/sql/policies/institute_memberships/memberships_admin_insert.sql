-- School admins give roles in their school.

CREATE POLICY memberships_admin_insert ON institute_memberships FOR INSERT TO markbook_app
  WITH CHECK (institute_id IN (SELECT app.my_admin_institute_ids()));
