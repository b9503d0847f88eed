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
  $$;
REVOKE ALL ON FUNCTION app.reply_cache_caller_state(uuid, uuid, text) FROM PUBLIC;
