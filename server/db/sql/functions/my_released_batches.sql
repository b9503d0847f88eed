-- The headings of the batches in which the caller has a released script: what a student may know of a
-- batch (title, paper, release and review window). exam_batches itself stays closed to students: every
-- policy keyed on "batch_id IN (SELECT id FROM exam_batches)" would otherwise open the whole batch.

CREATE OR REPLACE FUNCTION app.my_released_batches()
  RETURNS TABLE (id uuid, title text, template_id uuid, institute_id uuid, anonymous boolean, signed_off boolean, released_at timestamptz, reviews_until timestamptz)
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    RETURN QUERY SELECT b.id, b.title, b.template_id, b.institute_id, b.anonymous, b.signed_off, b.released_at, b.reviews_until
      FROM exam_batches b
      WHERE b.id IN (SELECT s.batch_id FROM exam_submissions s WHERE s.id IN (SELECT app.my_released_submission_ids()));
  END
  $$;
REVOKE ALL ON FUNCTION app.my_released_batches() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app.my_released_batches() TO markbook_app;
