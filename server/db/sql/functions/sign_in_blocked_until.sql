-- The latest time until which any of these sign-in keys is refused at `at`, or NULL when none is
-- (server/auth/sign-in-throttle.ts; called with the service's connection).

CREATE OR REPLACE FUNCTION app.sign_in_blocked_until(failure_keys text[], at timestamptz) RETURNS timestamptz
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
    SELECT max(f.blocked_until) FROM sign_in_failures f
    WHERE f.key = ANY (failure_keys) AND f.blocked_until > at AND f.forget_at > at
  $$;
REVOKE ALL ON FUNCTION app.sign_in_blocked_until(text[], timestamptz) FROM PUBLIC;
