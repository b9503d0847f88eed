-- A successful sign-in forgets the failures of its account (and of the known device it came from).
-- Called with the service's connection.

CREATE OR REPLACE FUNCTION app.forget_sign_in_failures(failure_keys text[]) RETURNS void
  LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$ DELETE FROM sign_in_failures WHERE key = ANY (failure_keys) $$;
REVOKE ALL ON FUNCTION app.forget_sign_in_failures(text[]) FROM PUBLIC;
