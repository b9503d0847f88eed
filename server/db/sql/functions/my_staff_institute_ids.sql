-- The institutes where the caller is staff: school admin, department head or teacher (stored in
-- app.staff_institute_ids).
--
-- The caller's scope, read once per transaction: asUser's first statement (server/db/rls.ts)
-- stores the sets in transaction-local settings together with the user they were read for
-- (app.scope_user_id), and this returns the stored set without a query. When the setting is missing or
-- was read for another user than app.user_id (a transaction that set app.user_id by other means), it
-- reads the memberships (app.institute_ids_with_roles). FOREACH rather than RETURN QUERY: no query to
-- run, so no SPI call per use. The policies call the four scope functions about a dozen times per mark
-- save; read each time, they cost a fifth of PostgreSQL's CPU per save.

CREATE OR REPLACE FUNCTION app.my_staff_institute_ids() RETURNS SETOF uuid
  LANGUAGE plpgsql STABLE
  AS $$
  DECLARE
    stored text := current_setting('app.staff_institute_ids', true);
    institute_id uuid;
  BEGIN
    IF stored LIKE '{%' AND current_setting('app.scope_user_id', true) = current_setting('app.user_id', true) THEN
      FOREACH institute_id IN ARRAY stored::uuid[] LOOP
        RETURN NEXT institute_id;
      END LOOP;
    ELSE
      RETURN QUERY SELECT app.institute_ids_with_roles('{school_admin,department_head,teacher}');
    END IF;
  END
  $$;
GRANT EXECUTE ON FUNCTION app.my_staff_institute_ids() TO markbook_app;
