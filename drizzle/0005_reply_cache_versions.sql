-- Versions for the reply cache (server/classroom/reply-cache.ts). An app process keeps the serialised
-- JSON of the big read-mostly lists (a school's students and classes, a class's roster, graph children,
-- a caller's bootstrap profile) and reuses it only while the version that the DATABASE keeps for what
-- the reply read is unchanged. Triggers bump the versions in the transaction of every write, so several
-- app processes and the CLI stay coherent without talking to each other.
--
-- Scopes: 'institute:<id>' (its users, memberships, classes and enrollments, and the institute row),
-- 'user:<id>' (the user row: the bootstrap profile) and 'graph:<db_name>' (nodes and edges of one
-- embedded graph database). Every bump takes a new value of one sequence, so a version never repeats and
-- the greatest version over several scopes changes whenever any of them changes.

CREATE SEQUENCE reply_cache_version_seq;--> statement-breakpoint
CREATE TABLE reply_cache_versions (
  scope text PRIMARY KEY,
  version bigint NOT NULL
);--> statement-breakpoint
-- Only the functions below (SECURITY DEFINER) read and write it: no grant to markbook_app, and row-level
-- security without a policy in case one is ever added by mistake.
ALTER TABLE reply_cache_versions ENABLE ROW LEVEL SECURITY;--> statement-breakpoint

-- Scopes are bumped in sorted order, so two writers of the same scopes lock them in the same order.
CREATE OR REPLACE FUNCTION app.bump_reply_cache_versions(scopes text[]) RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    INSERT INTO reply_cache_versions (scope, version)
      SELECT sorted.scope, nextval('reply_cache_version_seq')
      FROM (SELECT DISTINCT scope FROM unnest(scopes) AS scope WHERE scope IS NOT NULL ORDER BY scope) AS sorted
      ON CONFLICT (scope) DO UPDATE SET version = excluded.version;
  END
  $$;--> statement-breakpoint

-- A user row appears in the lists of every institute the user belongs to (and in their own profile). A
-- change of the password hash alone changes no reply.
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
  $$;--> statement-breakpoint

-- Rows that carry their institute: institute_memberships and classes.
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
  $$;--> statement-breakpoint

-- The institute row itself (its graph database name is part of the bootstrap profile).
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
  $$;--> statement-breakpoint

-- An enrollment belongs to the institute of its class. (When a class is deleted, its enrollments go with
-- it and the class's own trigger bumps the institute.)
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
  $$;--> statement-breakpoint

-- Nodes and edges of the embedded graph store, by graph database.
CREATE OR REPLACE FUNCTION app.reply_cache_graph_rows_changed() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      PERFORM app.bump_reply_cache_versions(ARRAY(SELECT 'graph:' || db_name FROM new_rows));
    ELSIF TG_OP = 'DELETE' THEN
      PERFORM app.bump_reply_cache_versions(ARRAY(SELECT 'graph:' || db_name FROM old_rows));
    ELSE
      PERFORM app.bump_reply_cache_versions(ARRAY(
        SELECT 'graph:' || db_name FROM old_rows UNION SELECT 'graph:' || db_name FROM new_rows));
    END IF;
    RETURN NULL;
  END
  $$;--> statement-breakpoint

-- Statement-level triggers with transition tables: one bump per statement, however many rows it writes
-- (a transition table needs a trigger per event).
DO $$
DECLARE
  target record;
BEGIN
  FOR target IN SELECT * FROM (VALUES
    ('users', 'app.reply_cache_users_changed'),
    ('institutes', 'app.reply_cache_institutes_changed'),
    ('institute_memberships', 'app.reply_cache_institute_rows_changed'),
    ('classes', 'app.reply_cache_institute_rows_changed'),
    ('enrollments', 'app.reply_cache_enrollments_changed'),
    ('graph_nodes', 'app.reply_cache_graph_rows_changed'),
    ('graph_edges', 'app.reply_cache_graph_rows_changed')
  ) AS t(table_name, function_name) LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION %s()',
      target.table_name || '_reply_cache_insert', target.table_name, target.function_name);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION %s()',
      target.table_name || '_reply_cache_update', target.table_name, target.function_name);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION %s()',
      target.table_name || '_reply_cache_delete', target.table_name, target.function_name);
  END LOOP;
END
$$;--> statement-breakpoint

-- What a cached reply needs to know about its caller, in one statement: their school and personal graph
-- database, each institute they belong to (staff or not, its graph databases, its version), their own
-- version, the institute of a class they ask about and the version of a graph database they ask about.
-- SECURITY DEFINER and called with the service's connection, outside a transaction: it answers only
-- about the caller named by a verified token (what app.institute_ids_with_roles reads for the policies)
-- and about version counters; the replies themselves are always computed as the caller, under
-- row-level security. One statement instead of an RLS transaction (four round trips) per request.
CREATE OR REPLACE FUNCTION app.reply_cache_caller_state(caller_id uuid, requested_class_id uuid, requested_graph_db text)
  RETURNS jsonb
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    RETURN (
      SELECT jsonb_build_object(
        'school_id', u.school_id,
        'user_db_name', u.user_db_name,
        'user_version', (SELECT v.version::text FROM reply_cache_versions v WHERE v.scope = 'user:' || u.id),
        'institutes', coalesce((
          SELECT jsonb_agg(jsonb_build_object(
                   'id', m.institute_id, 'staff', m.staff, 'graph_db_name', i.graph_db_name,
                   'curriculum_db_name', i.curriculum_db_name, 'version', v.version::text) ORDER BY m.institute_id)
          FROM (SELECT institute_id, bool_or(role <> 'student') AS staff
                FROM institute_memberships WHERE user_id = u.id GROUP BY institute_id) AS m
          JOIN institutes i ON i.id = m.institute_id
          LEFT JOIN reply_cache_versions v ON v.scope = 'institute:' || m.institute_id), '[]'::jsonb),
        'class_institute_id', (SELECT c.institute_id FROM classes c WHERE c.id = requested_class_id),
        'graph_version', (SELECT v.version::text FROM reply_cache_versions v WHERE v.scope = 'graph:' || requested_graph_db))
      FROM users u
      WHERE u.id = caller_id);
  END
  $$;--> statement-breakpoint

-- Whether a verified user token still names a live user (and, for a personal access token, a token
-- that is neither revoked nor expired): 'live', 'unknown_user' or 'revoked'. The credential check of
-- every request, in one statement (server/auth/authenticate.ts).
CREATE OR REPLACE FUNCTION app.user_token_state(token_user_id uuid, token_id uuid) RETURNS text
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    IF NOT EXISTS (SELECT 1 FROM users WHERE id = token_user_id) THEN
      RETURN 'unknown_user';
    END IF;
    IF token_id IS NOT NULL AND NOT EXISTS (
      SELECT 1 FROM personal_access_tokens
      WHERE id = token_id AND user_id = token_user_id AND revoked_at IS NULL AND expires_at > now()
    ) THEN
      RETURN 'revoked';
    END IF;
    RETURN 'live';
  END
  $$;--> statement-breakpoint

REVOKE ALL ON FUNCTION app.bump_reply_cache_versions(text[]) FROM PUBLIC;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.reply_cache_caller_state(uuid, uuid, text) FROM PUBLIC;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.user_token_state(uuid, uuid) FROM PUBLIC;
