-- Deletes the sign-in failure counts that are forgotten and no longer refuse anything; called now and
-- then, not at every sign-in. Answers how many. Called with the service's connection.

CREATE OR REPLACE FUNCTION app.forget_old_sign_in_failures(before timestamptz) RETURNS integer
  LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
    WITH forgotten AS (
      DELETE FROM sign_in_failures WHERE forget_at < before AND (blocked_until IS NULL OR blocked_until < before) RETURNING 1
    )
    SELECT count(*)::integer FROM forgotten
  $$;
REVOKE ALL ON FUNCTION app.forget_old_sign_in_failures(timestamptz) FROM PUBLIC;
