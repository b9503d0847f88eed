-- A user reads themselves and every user whose membership they see (memberships_read: the staff of
-- their schools, and for staff every member); staff also read the users of their school that have no
-- membership yet (a user in the middle of being created).

CREATE POLICY users_read ON users FOR SELECT TO markbook_app
  USING (
    id = app.current_user_id()
    OR id IN (SELECT user_id FROM institute_memberships)
    OR school_id IN (SELECT app.my_staff_institute_ids())
  );
