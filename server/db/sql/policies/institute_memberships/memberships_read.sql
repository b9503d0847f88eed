-- Everyone sees their own membership and the staff of their schools; staff see every member.

CREATE POLICY memberships_read ON institute_memberships FOR SELECT TO markbook_app
  USING (
    user_id = app.current_user_id()
    OR institute_id IN (SELECT app.my_staff_institute_ids())
    OR (role <> 'student' AND institute_id IN (SELECT app.my_institute_ids()))
  );
