-- Which of the given emails are taken, by anyone (case-insensitive). Emails and usernames are unique
-- across the installation, but an admin sees only their own school: this answers for a whole import at
-- once (server/identity), and nothing else about the accounts that hold them.

CREATE OR REPLACE FUNCTION app.emails_in_use(candidates text[]) RETURNS SETOF text
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$ SELECT lower(email) FROM users WHERE lower(email) = ANY (SELECT lower(c) FROM unnest(candidates) c) $$;
REVOKE ALL ON FUNCTION app.emails_in_use(text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app.emails_in_use(text[]) TO markbook_app;
