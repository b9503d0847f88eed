-- Whether a verified user token may be used (server/auth/authenticate.ts, the credential check of every
-- request, in one statement): 'live', or why not: 'unknown_user', 'deactivated' (users.deactivated_at
-- set), 'password_changed' (the password changed after the token was issued: an admin's reset or the
-- user's own change; `token_issued_at` NULL, a token without iat, counts as issued before any change),
-- 'revoked' (a personal access token revoked or expired), 'must_choose_password' (a token issued after a
-- reset, while the user still holds the temporary password, is held at "choose your password" as a
-- session is). Called with the service's connection, never as markbook_app.
--
-- Two versions: the application calls the three-argument one. The two-argument one (without the
-- password checks) stayed for a node of the previous version during a rolling update.

CREATE OR REPLACE FUNCTION app.user_token_state(token_user_id uuid, token_id uuid, token_issued_at timestamptz) RETURNS text
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  DECLARE
    deactivated timestamptz;
    changed timestamptz;
    must_choose boolean;
  BEGIN
    SELECT deactivated_at, password_changed_at, must_change_password INTO deactivated, changed, must_choose
      FROM users WHERE id = token_user_id;
    IF NOT FOUND THEN
      RETURN 'unknown_user';
    END IF;
    IF deactivated IS NOT NULL THEN
      RETURN 'deactivated';
    END IF;
    IF changed IS NOT NULL AND (token_issued_at IS NULL OR token_issued_at < changed) THEN
      RETURN 'password_changed';
    END IF;
    IF token_id IS NOT NULL AND NOT EXISTS (
      SELECT 1 FROM personal_access_tokens
      WHERE id = token_id AND user_id = token_user_id AND revoked_at IS NULL AND expires_at > now()
    ) THEN
      RETURN 'revoked';
    END IF;
    IF must_choose THEN
      RETURN 'must_choose_password';
    END IF;
    RETURN 'live';
  END
  $$;
REVOKE ALL ON FUNCTION app.user_token_state(uuid, uuid, timestamptz) FROM PUBLIC;

CREATE OR REPLACE FUNCTION app.user_token_state(token_user_id uuid, token_id uuid) RETURNS text
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  DECLARE
    deactivated timestamptz;
  BEGIN
    SELECT deactivated_at INTO deactivated FROM users WHERE id = token_user_id;
    IF NOT FOUND THEN
      RETURN 'unknown_user';
    END IF;
    IF deactivated IS NOT NULL THEN
      RETURN 'deactivated';
    END IF;
    IF token_id IS NOT NULL AND NOT EXISTS (
      SELECT 1 FROM personal_access_tokens
      WHERE id = token_id AND user_id = token_user_id AND revoked_at IS NULL AND expires_at > now()
    ) THEN
      RETURN 'revoked';
    END IF;
    RETURN 'live';
  END
  $$;
REVOKE ALL ON FUNCTION app.user_token_state(uuid, uuid) FROM PUBLIC;
