-- Trigger of users: users_update_self lets everyone update their own row, and markbook_app's update
-- grant names columns only an admin may set: a user who is not an admin of their school changes only
-- their display name and password.

CREATE OR REPLACE FUNCTION app.guard_own_user_update() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    IF current_user = 'markbook_app'
       AND (OLD.school_id IS NULL OR OLD.school_id NOT IN (SELECT app.my_admin_institute_ids()))
       AND (NEW.email, NEW.full_name, NEW.user_type, NEW.year_group, NEW.sis_id, NEW.deactivated_at)
           IS DISTINCT FROM (OLD.email, OLD.full_name, OLD.user_type, OLD.year_group, OLD.sis_id, OLD.deactivated_at)
    THEN
      RAISE EXCEPTION 'only a school admin changes these details' USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
  END
  $$;
