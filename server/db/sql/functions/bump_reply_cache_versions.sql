-- Bumps the reply cache's versions of `scopes` (server/classroom/reply-cache.ts): every bump takes a
-- new value of one sequence, so a version never repeats and the greatest version over several scopes
-- changes whenever any of them changes. Scopes: 'institute:<id>', 'user:<id>', 'graph:<db_name>'.
-- Scopes are bumped in sorted order, so two writers of the same scopes lock them in the same order.
-- Only these SECURITY DEFINER functions read and write reply_cache_versions (no grant to markbook_app).

CREATE OR REPLACE FUNCTION app.bump_reply_cache_versions(scopes text[]) RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    INSERT INTO reply_cache_versions (scope, version)
      SELECT sorted.scope, nextval('reply_cache_version_seq')
      FROM (SELECT DISTINCT scope FROM unnest(scopes) AS scope WHERE scope IS NOT NULL ORDER BY scope) AS sorted
      ON CONFLICT (scope) DO UPDATE SET version = excluded.version;
  END
  $$;
REVOKE ALL ON FUNCTION app.bump_reply_cache_versions(text[]) FROM PUBLIC;
