-- School admins take roles back in their school.

CREATE POLICY memberships_admin_delete ON institute_memberships FOR DELETE TO markbook_app
  USING (institute_id IN (SELECT app.my_admin_institute_ids()));
