ALTER TABLE "users" ADD COLUMN "year_group" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "sis_id" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "must_change_password" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "password_changed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "classes" ADD COLUMN "sis_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "users_school_sis_id_key" ON "users" USING btree ("school_id","sis_id");--> statement-breakpoint
ALTER TABLE "classes" ADD CONSTRAINT "classes_institute_sis_id_key" UNIQUE("institute_id","sis_id");--> statement-breakpoint

-- The columns above are from drizzle-kit generate (server/db/schema); what follows is written by hand.
-- School admins manage the people of their school (server/identity/people.ts, roster-import.ts). A
-- user's school is users.school_id: an admin creates users in their own school and changes only those.
-- Roles stay in institute_memberships, under their own policies (0001).
GRANT INSERT (id, email, password_hash, user_type, username, full_name, display_name, user_db_name, school_id, created_at, deactivated_at,
  year_group, sis_id, must_change_password, password_changed_at) ON users TO markbook_app;--> statement-breakpoint
GRANT UPDATE (email, full_name, display_name, user_type, year_group, sis_id, password_hash, must_change_password,
  password_changed_at, deactivated_at) ON users TO markbook_app;--> statement-breakpoint

-- Staff also see the users of their school that have no membership yet (a user in the middle of being created).
DROP POLICY users_read ON users;--> statement-breakpoint
CREATE POLICY users_read ON users FOR SELECT TO markbook_app
  USING (
    id = app.current_user_id()
    OR id IN (SELECT user_id FROM institute_memberships)
    OR school_id IN (SELECT app.my_staff_institute_ids())
  );--> statement-breakpoint
CREATE POLICY users_admin_insert ON users FOR INSERT TO markbook_app
  WITH CHECK (school_id IN (SELECT app.my_admin_institute_ids()));--> statement-breakpoint
CREATE POLICY users_admin_update ON users FOR UPDATE TO markbook_app
  USING (school_id IN (SELECT app.my_admin_institute_ids()))
  WITH CHECK (school_id IN (SELECT app.my_admin_institute_ids()));--> statement-breakpoint

-- users_update_self lets everyone update their own row, and the grant above now names columns only an
-- admin may set: a user who is not an admin of their school changes only their display name and password.
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
  $$;--> statement-breakpoint
CREATE TRIGGER users_guard_own_update BEFORE UPDATE ON users
  FOR EACH ROW EXECUTE FUNCTION app.guard_own_user_update();--> statement-breakpoint

-- Emails and usernames are unique across the installation, but an admin sees only their own school.
-- These two answer, for a whole import at once, which of the given values are taken (by anyone), and
-- nothing else about the accounts that hold them.
CREATE OR REPLACE FUNCTION app.emails_in_use(candidates text[]) RETURNS SETOF text
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$ SELECT lower(email) FROM users WHERE lower(email) = ANY (SELECT lower(c) FROM unnest(candidates) c) $$;--> statement-breakpoint
-- Usernames equal to a base, or a base followed by "-<number>" (server/identity picks the next free one).
CREATE OR REPLACE FUNCTION app.usernames_in_use(bases text[]) RETURNS SETOF text
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
    SELECT username FROM users
    WHERE username = ANY (bases)
       OR (username ~ '-[0-9]+$' AND regexp_replace(username, '-[0-9]+$', '') = ANY (bases))
  $$;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.emails_in_use(text[]), app.usernames_in_use(text[]) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION app.emails_in_use(text[]), app.usernames_in_use(text[]) TO markbook_app;
