-- Reply cache trigger of the rows that carry their institute: institute_memberships and classes
-- (statement-level, with transition tables).

CREATE OR REPLACE FUNCTION app.reply_cache_institute_rows_changed() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      PERFORM app.bump_reply_cache_versions(ARRAY(SELECT 'institute:' || institute_id FROM new_rows));
    ELSIF TG_OP = 'DELETE' THEN
      PERFORM app.bump_reply_cache_versions(ARRAY(SELECT 'institute:' || institute_id FROM old_rows));
    ELSE
      PERFORM app.bump_reply_cache_versions(ARRAY(
        SELECT 'institute:' || institute_id FROM old_rows UNION SELECT 'institute:' || institute_id FROM new_rows));
    END IF;
    RETURN NULL;
  END
  $$;
