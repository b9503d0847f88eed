-- Which usernames equal to a base, or a base followed by "-<number>", are taken, by anyone
-- (server/identity picks the next free one). Like app.emails_in_use, it says nothing else about the
-- accounts that hold them.

CREATE OR REPLACE FUNCTION app.usernames_in_use(bases text[]) RETURNS SETOF text
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
    SELECT username FROM users
    WHERE username = ANY (bases)
       OR (username ~ '-[0-9]+$' AND regexp_replace(username, '-[0-9]+$', '') = ANY (bases))
  $$;
REVOKE ALL ON FUNCTION app.usernames_in_use(text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app.usernames_in_use(text[]) TO markbook_app;
