-- Reply cache trigger of enrollments and class_teachers: a row belongs to the institute of its class.
-- (When a class is deleted, its enrollments go with it and the class's own trigger bumps the institute.)

CREATE OR REPLACE FUNCTION app.reply_cache_enrollments_changed() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      PERFORM app.bump_reply_cache_versions(ARRAY(
        SELECT 'institute:' || c.institute_id FROM new_rows r JOIN classes c ON c.id = r.class_id));
    ELSIF TG_OP = 'DELETE' THEN
      PERFORM app.bump_reply_cache_versions(ARRAY(
        SELECT 'institute:' || c.institute_id FROM old_rows r JOIN classes c ON c.id = r.class_id));
    ELSE
      PERFORM app.bump_reply_cache_versions(ARRAY(
        SELECT 'institute:' || c.institute_id
        FROM (SELECT class_id FROM old_rows UNION SELECT class_id FROM new_rows) r JOIN classes c ON c.id = r.class_id));
    END IF;
    RETURN NULL;
  END
  $$;
