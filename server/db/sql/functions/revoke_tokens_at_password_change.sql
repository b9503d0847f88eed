-- Trigger of users: a password change revokes the user's personal access tokens created before it, so
-- that their list says so (app.user_token_state refuses them anyway). SECURITY DEFINER: the admin who
-- resets a password may not write another user's tokens under row-level security.

CREATE OR REPLACE FUNCTION app.revoke_tokens_at_password_change() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    UPDATE personal_access_tokens SET revoked_at = NEW.password_changed_at
      WHERE user_id = NEW.id AND revoked_at IS NULL AND created_at < NEW.password_changed_at;
    RETURN NEW;
  END
  $$;
REVOKE ALL ON FUNCTION app.revoke_tokens_at_password_change() FROM PUBLIC;
