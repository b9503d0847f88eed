-- A user reads themselves and every user who belongs to an institute they can see the membership of;
-- staff also read the users of their school without a membership yet (a user being created).

CREATE POLICY users_read ON users FOR SELECT TO markbook_app
  USING (
    id = app.current_user_id()
    OR id IN (SELECT user_id FROM institute_memberships)
    OR school_id IN (SELECT app.my_staff_institute_ids())
  );
