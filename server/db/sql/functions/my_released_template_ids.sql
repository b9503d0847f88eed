-- The papers of the caller's released batches: a student reads the paper they sat (questions, response
-- areas, rubric items follow their template's read policy).

CREATE OR REPLACE FUNCTION app.my_released_template_ids() RETURNS SETOF uuid
  LANGUAGE plpgsql STABLE
  AS $$ BEGIN RETURN QUERY SELECT DISTINCT rb.template_id FROM app.my_released_batches() rb; END $$;
REVOKE ALL ON FUNCTION app.my_released_template_ids() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app.my_released_template_ids() TO markbook_app;
