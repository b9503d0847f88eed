-- The institutes where the caller is a department head: who signs off and reopens batches, and
-- moderates every batch of the school (app.my_moderated_batch_ids). Read from the memberships at each
-- call (it has no stored setting).

CREATE OR REPLACE FUNCTION app.my_head_institute_ids() RETURNS SETOF uuid
  LANGUAGE plpgsql STABLE
  AS $$ BEGIN RETURN QUERY SELECT app.institute_ids_with_roles('{department_head}'); END $$;
GRANT EXECUTE ON FUNCTION app.my_head_institute_ids() TO markbook_app;
