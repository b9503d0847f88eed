-- A password change revokes the user's personal access tokens created before it
-- (app.revoke_tokens_at_password_change).

CREATE TRIGGER users_password_change_revokes_tokens AFTER UPDATE OF password_changed_at ON users
  FOR EACH ROW WHEN (NEW.password_changed_at IS NOT NULL AND NEW.password_changed_at IS DISTINCT FROM OLD.password_changed_at)
  EXECUTE FUNCTION app.revoke_tokens_at_password_change();
