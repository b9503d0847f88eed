-- A user who is not an admin of their school changes only their display name and password in their
-- own row (app.guard_own_user_update).

CREATE TRIGGER users_guard_own_update BEFORE UPDATE ON users
  FOR EACH ROW EXECUTE FUNCTION app.guard_own_user_update();
