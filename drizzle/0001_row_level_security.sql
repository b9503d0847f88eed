-- Row-level security: user-facing queries run as markbook_app (not a superuser, not an owner, no
-- BYPASSRLS) with the caller's id in the transaction-local setting app.user_id. The owner (migrations,
-- seeding and the contract's named service-level reads) is not subject to these policies.

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'markbook_app') THEN
    CREATE ROLE markbook_app NOLOGIN NOSUPERUSER NOBYPASSRLS NOINHERIT;
  END IF;
END
$$;--> statement-breakpoint
-- The connecting role must be allowed to SET ROLE markbook_app (the role is cluster-wide, so another
-- database of the cluster may have created it already).
GRANT markbook_app TO CURRENT_USER;--> statement-breakpoint

CREATE SCHEMA IF NOT EXISTS app;--> statement-breakpoint
GRANT USAGE ON SCHEMA app TO markbook_app;--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO markbook_app;--> statement-breakpoint

-- nullif: once set_config has run on a connection, an unset value reads as '' rather than NULL.
CREATE OR REPLACE FUNCTION app.current_user_id() RETURNS uuid
  LANGUAGE sql STABLE
  AS $$ SELECT nullif(current_setting('app.user_id', true), '')::uuid $$;--> statement-breakpoint

-- SECURITY DEFINER: read memberships without recursing into their own policy. Clients never supply
-- the scope; it always comes from the caller's memberships.
CREATE OR REPLACE FUNCTION app.institute_ids_with_roles(roles membership_role[]) RETURNS SETOF uuid
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
    SELECT DISTINCT institute_id FROM institute_memberships
    WHERE user_id = app.current_user_id() AND role = ANY (roles)
  $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION app.my_institute_ids() RETURNS SETOF uuid
  LANGUAGE sql STABLE
  AS $$ SELECT app.institute_ids_with_roles(enum_range(NULL::membership_role)) $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION app.my_staff_institute_ids() RETURNS SETOF uuid
  LANGUAGE sql STABLE
  AS $$ SELECT app.institute_ids_with_roles('{school_admin,department_head,teacher}') $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION app.my_admin_institute_ids() RETURNS SETOF uuid
  LANGUAGE sql STABLE
  AS $$ SELECT app.institute_ids_with_roles('{school_admin}') $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION app.my_timetable_manager_institute_ids() RETURNS SETOF uuid
  LANGUAGE sql STABLE
  AS $$ SELECT app.institute_ids_with_roles('{school_admin,department_head}') $$;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.institute_ids_with_roles(membership_role[]) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA app TO markbook_app;--> statement-breakpoint

-- Privileges: what markbook_app may attempt at all; the policies below decide which rows.
GRANT SELECT ON institutes, exam_papers TO markbook_app;--> statement-breakpoint
GRANT SELECT ON users TO markbook_app;--> statement-breakpoint
GRANT UPDATE (display_name, password_hash) ON users TO markbook_app;--> statement-breakpoint
GRANT SELECT, INSERT, DELETE ON institute_memberships TO markbook_app;--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON classes, enrollments, timetables, timetable_entries TO markbook_app;--> statement-breakpoint
GRANT SELECT, INSERT ON files TO markbook_app;--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE ON exam_templates, exam_batches, exam_submissions, exam_mark_entries TO markbook_app;--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON exam_questions, exam_response_areas, exam_question_boundaries TO markbook_app;--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE ON api_keys, personal_access_tokens TO markbook_app;--> statement-breakpoint
-- graph_nodes and graph_edges: no grant. Only the graph port reads and writes them.

ALTER TABLE institutes ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE users ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE institute_memberships ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE classes ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE enrollments ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE timetables ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE timetable_entries ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_papers ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE files ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_templates ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_questions ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_response_areas ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_question_boundaries ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_batches ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_submissions ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_mark_entries ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE api_keys ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE personal_access_tokens ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE graph_nodes ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE graph_edges ENABLE ROW LEVEL SECURITY;--> statement-breakpoint

-- People and schools ---------------------------------------------------------------------------
CREATE POLICY institutes_read ON institutes FOR SELECT TO markbook_app
  USING (id IN (SELECT app.my_institute_ids()));--> statement-breakpoint

-- Everyone sees their own membership and the staff of their schools; staff see every member.
CREATE POLICY memberships_read ON institute_memberships FOR SELECT TO markbook_app
  USING (
    user_id = app.current_user_id()
    OR institute_id IN (SELECT app.my_staff_institute_ids())
    OR (role <> 'student' AND institute_id IN (SELECT app.my_institute_ids()))
  );--> statement-breakpoint
CREATE POLICY memberships_admin_insert ON institute_memberships FOR INSERT TO markbook_app
  WITH CHECK (institute_id IN (SELECT app.my_admin_institute_ids()));--> statement-breakpoint
CREATE POLICY memberships_admin_delete ON institute_memberships FOR DELETE TO markbook_app
  USING (institute_id IN (SELECT app.my_admin_institute_ids()));--> statement-breakpoint

CREATE POLICY users_read ON users FOR SELECT TO markbook_app
  USING (id = app.current_user_id() OR id IN (SELECT user_id FROM institute_memberships));--> statement-breakpoint
CREATE POLICY users_update_self ON users FOR UPDATE TO markbook_app
  USING (id = app.current_user_id()) WITH CHECK (id = app.current_user_id());--> statement-breakpoint

-- Classes and timetables -----------------------------------------------------------------------
CREATE POLICY classes_read ON classes FOR SELECT TO markbook_app
  USING (institute_id IN (SELECT app.my_institute_ids()));--> statement-breakpoint
CREATE POLICY classes_admin_write ON classes FOR ALL TO markbook_app
  USING (institute_id IN (SELECT app.my_admin_institute_ids()))
  WITH CHECK (institute_id IN (SELECT app.my_admin_institute_ids()));--> statement-breakpoint

CREATE POLICY enrollments_read ON enrollments FOR SELECT TO markbook_app
  USING (
    student_id = app.current_user_id()
    OR class_id IN (SELECT id FROM classes WHERE institute_id IN (SELECT app.my_staff_institute_ids()))
  );--> statement-breakpoint
CREATE POLICY enrollments_admin_write ON enrollments FOR ALL TO markbook_app
  USING (class_id IN (SELECT id FROM classes WHERE institute_id IN (SELECT app.my_admin_institute_ids())))
  WITH CHECK (class_id IN (SELECT id FROM classes WHERE institute_id IN (SELECT app.my_admin_institute_ids())));--> statement-breakpoint

CREATE POLICY timetables_read ON timetables FOR SELECT TO markbook_app
  USING (institute_id IN (SELECT app.my_institute_ids()));--> statement-breakpoint
CREATE POLICY timetables_manager_write ON timetables FOR ALL TO markbook_app
  USING (institute_id IN (SELECT app.my_timetable_manager_institute_ids()))
  WITH CHECK (institute_id IN (SELECT app.my_timetable_manager_institute_ids()));--> statement-breakpoint

CREATE POLICY timetable_entries_read ON timetable_entries FOR SELECT TO markbook_app
  USING (timetable_id IN (SELECT id FROM timetables));--> statement-breakpoint
CREATE POLICY timetable_entries_manager_write ON timetable_entries FOR ALL TO markbook_app
  USING (timetable_id IN (SELECT id FROM timetables WHERE institute_id IN (SELECT app.my_timetable_manager_institute_ids())))
  WITH CHECK (timetable_id IN (SELECT id FROM timetables WHERE institute_id IN (SELECT app.my_timetable_manager_institute_ids())));--> statement-breakpoint

-- Exam catalogue and files ---------------------------------------------------------------------
CREATE POLICY exam_papers_read ON exam_papers FOR SELECT TO markbook_app
  USING (app.current_user_id() IS NOT NULL);--> statement-breakpoint

CREATE POLICY files_read ON files FOR SELECT TO markbook_app
  USING (institute_id IS NULL OR institute_id IN (SELECT app.my_staff_institute_ids()));--> statement-breakpoint
CREATE POLICY files_insert_own ON files FOR INSERT TO markbook_app
  WITH CHECK (owner_id = app.current_user_id() AND institute_id IN (SELECT app.my_staff_institute_ids()));--> statement-breakpoint

-- Templates: staff of the institute read; only the owner changes ------------------------------
CREATE POLICY exam_templates_read ON exam_templates FOR SELECT TO markbook_app
  USING (institute_id IN (SELECT app.my_staff_institute_ids()));--> statement-breakpoint
CREATE POLICY exam_templates_insert_own ON exam_templates FOR INSERT TO markbook_app
  WITH CHECK (owner_id = app.current_user_id() AND institute_id IN (SELECT app.my_staff_institute_ids()));--> statement-breakpoint
CREATE POLICY exam_templates_update_own ON exam_templates FOR UPDATE TO markbook_app
  USING (owner_id = app.current_user_id())
  WITH CHECK (owner_id = app.current_user_id() AND institute_id IN (SELECT app.my_staff_institute_ids()));--> statement-breakpoint

CREATE POLICY exam_questions_read ON exam_questions FOR SELECT TO markbook_app
  USING (template_id IN (SELECT id FROM exam_templates));--> statement-breakpoint
CREATE POLICY exam_questions_owner_write ON exam_questions FOR ALL TO markbook_app
  USING (template_id IN (SELECT id FROM exam_templates WHERE owner_id = app.current_user_id()))
  WITH CHECK (template_id IN (SELECT id FROM exam_templates WHERE owner_id = app.current_user_id()));--> statement-breakpoint
CREATE POLICY exam_response_areas_read ON exam_response_areas FOR SELECT TO markbook_app
  USING (template_id IN (SELECT id FROM exam_templates));--> statement-breakpoint
CREATE POLICY exam_response_areas_owner_write ON exam_response_areas FOR ALL TO markbook_app
  USING (template_id IN (SELECT id FROM exam_templates WHERE owner_id = app.current_user_id()))
  WITH CHECK (template_id IN (SELECT id FROM exam_templates WHERE owner_id = app.current_user_id()));--> statement-breakpoint
CREATE POLICY exam_question_boundaries_read ON exam_question_boundaries FOR SELECT TO markbook_app
  USING (template_id IN (SELECT id FROM exam_templates));--> statement-breakpoint
CREATE POLICY exam_question_boundaries_owner_write ON exam_question_boundaries FOR ALL TO markbook_app
  USING (template_id IN (SELECT id FROM exam_templates WHERE owner_id = app.current_user_id()))
  WITH CHECK (template_id IN (SELECT id FROM exam_templates WHERE owner_id = app.current_user_id()));--> statement-breakpoint

-- Batches, submissions and marks: staff of the institute read and mark; the owner runs the batch --
CREATE POLICY exam_batches_read ON exam_batches FOR SELECT TO markbook_app
  USING (institute_id IN (SELECT app.my_staff_institute_ids()));--> statement-breakpoint
CREATE POLICY exam_batches_insert_own ON exam_batches FOR INSERT TO markbook_app
  WITH CHECK (teacher_id = app.current_user_id() AND institute_id IN (SELECT app.my_staff_institute_ids()));--> statement-breakpoint
CREATE POLICY exam_batches_update_own ON exam_batches FOR UPDATE TO markbook_app
  USING (teacher_id = app.current_user_id())
  WITH CHECK (teacher_id = app.current_user_id());--> statement-breakpoint

-- A student reads only their own submission and marks.
CREATE POLICY exam_submissions_read ON exam_submissions FOR SELECT TO markbook_app
  USING (student_id = app.current_user_id() OR batch_id IN (SELECT id FROM exam_batches));--> statement-breakpoint
CREATE POLICY exam_submissions_owner_insert ON exam_submissions FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));--> statement-breakpoint
CREATE POLICY exam_submissions_staff_update ON exam_submissions FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches));--> statement-breakpoint

CREATE POLICY exam_mark_entries_read ON exam_mark_entries FOR SELECT TO markbook_app
  USING (submission_id IN (SELECT id FROM exam_submissions));--> statement-breakpoint
CREATE POLICY exam_mark_entries_staff_insert ON exam_mark_entries FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND marked_by_user_id = app.current_user_id());--> statement-breakpoint
CREATE POLICY exam_mark_entries_staff_update ON exam_mark_entries FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND marked_by_user_id = app.current_user_id());--> statement-breakpoint

-- Keys and tokens ------------------------------------------------------------------------------
-- Speech API keys serve the whole installation: school admins manage them.
CREATE POLICY api_keys_admin ON api_keys FOR ALL TO markbook_app
  USING (EXISTS (SELECT app.my_admin_institute_ids()))
  WITH CHECK (EXISTS (SELECT app.my_admin_institute_ids()) AND created_by = app.current_user_id());--> statement-breakpoint
CREATE POLICY personal_access_tokens_own ON personal_access_tokens FOR ALL TO markbook_app
  USING (user_id = app.current_user_id())
  WITH CHECK (user_id = app.current_user_id());
