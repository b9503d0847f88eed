-- Reply cache trigger of users (statement-level, with transition tables): a user row appears in the
-- lists of every institute the user belongs to (and in their own profile). A change of the password hash
-- alone changes no reply.

CREATE OR REPLACE FUNCTION app.reply_cache_users_changed() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      PERFORM app.bump_reply_cache_versions(ARRAY(
        SELECT 'user:' || id FROM new_rows
        UNION SELECT 'institute:' || school_id FROM new_rows WHERE school_id IS NOT NULL));
    ELSIF TG_OP = 'DELETE' THEN
      PERFORM app.bump_reply_cache_versions(ARRAY(
        SELECT 'user:' || id FROM old_rows
        UNION SELECT 'institute:' || school_id FROM old_rows WHERE school_id IS NOT NULL
        UNION SELECT 'institute:' || m.institute_id FROM institute_memberships m JOIN old_rows o ON o.id = m.user_id));
    ELSE
      PERFORM app.bump_reply_cache_versions(ARRAY(
        WITH changed AS (
          SELECT n.id, o.school_id AS old_school_id, n.school_id AS new_school_id
          FROM old_rows o JOIN new_rows n ON n.id = o.id
          WHERE (o.email, o.user_type, o.username, o.full_name, o.display_name, o.user_db_name, o.school_id)
            IS DISTINCT FROM (n.email, n.user_type, n.username, n.full_name, n.display_name, n.user_db_name, n.school_id)
        )
        SELECT 'user:' || id FROM changed
        UNION SELECT 'institute:' || old_school_id FROM changed WHERE old_school_id IS NOT NULL
        UNION SELECT 'institute:' || new_school_id FROM changed WHERE new_school_id IS NOT NULL
        UNION SELECT 'institute:' || m.institute_id FROM institute_memberships m JOIN changed c ON c.id = m.user_id));
    END IF;
    RETURN NULL;
  END
  $$;
