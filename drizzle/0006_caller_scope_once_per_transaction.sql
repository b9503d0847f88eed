-- The caller's scope (the institutes of their memberships, per group of roles) read once per
-- transaction instead of once per policy per statement. A mark save evaluated the scope functions
-- about a dozen times, each a SECURITY DEFINER call with its own query on institute_memberships
-- (measured: a fifth of PostgreSQL's CPU per save). asUser's first statement now stores the four sets
-- in transaction-local settings, together with the user they were read for (server/db/rls.ts);
-- the functions below return the stored set, without a query. When the settings are missing or were
-- read for another user than app.user_id (a transaction that set app.user_id by other means), they
-- read the memberships as before. Same names, signatures and results as in 0003.
DO $$
DECLARE
  scope record;
BEGIN
  FOR scope IN SELECT * FROM (VALUES
    ('my_institute_ids', 'app.institute_ids', 'enum_range(NULL::membership_role)'),
    ('my_staff_institute_ids', 'app.staff_institute_ids', '''{school_admin,department_head,teacher}'''),
    ('my_admin_institute_ids', 'app.admin_institute_ids', '''{school_admin}'''),
    ('my_timetable_manager_institute_ids', 'app.timetable_manager_institute_ids', '''{school_admin,department_head}''')
  ) AS scopes(function_name, setting, roles)
  LOOP
    -- FOREACH rather than RETURN QUERY: no query to run, so no SPI call per use.
    EXECUTE format($function$
      CREATE OR REPLACE FUNCTION app.%I() RETURNS SETOF uuid
        LANGUAGE plpgsql STABLE
        AS $body$
        DECLARE
          stored text := current_setting(%L, true);
          institute_id uuid;
        BEGIN
          IF stored LIKE '{%%' AND current_setting('app.scope_user_id', true) = current_setting('app.user_id', true) THEN
            FOREACH institute_id IN ARRAY stored::uuid[] LOOP
              RETURN NEXT institute_id;
            END LOOP;
          ELSE
            RETURN QUERY SELECT app.institute_ids_with_roles(%s);
          END IF;
        END
        $body$
    $function$, scope.function_name, scope.setting, scope.roles);
  END LOOP;
END
$$;
