-- Everyone updates their own row; app.guard_own_user_update keeps a user who is not an admin of their
-- school to their display name and password.

CREATE POLICY users_update_self ON users FOR UPDATE TO markbook_app
  USING (id = app.current_user_id()) WITH CHECK (id = app.current_user_id());
