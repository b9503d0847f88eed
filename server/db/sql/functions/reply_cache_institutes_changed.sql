-- Reply cache trigger of institutes: the institute row itself (its graph database name is part of
-- the bootstrap profile).

CREATE OR REPLACE FUNCTION app.reply_cache_institutes_changed() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      PERFORM app.bump_reply_cache_versions(ARRAY(SELECT 'institute:' || id FROM new_rows));
    ELSIF TG_OP = 'DELETE' THEN
      PERFORM app.bump_reply_cache_versions(ARRAY(SELECT 'institute:' || id FROM old_rows));
    ELSE
      PERFORM app.bump_reply_cache_versions(ARRAY(
        SELECT 'institute:' || id FROM old_rows UNION SELECT 'institute:' || id FROM new_rows));
    END IF;
    RETURN NULL;
  END
  $$;
