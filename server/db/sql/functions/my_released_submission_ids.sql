-- The caller's scripts that are released to them (exam_submissions.released_at, in a batch whose release
-- stands, of a school they still belong to): the student branch of every read policy of marked work.
-- SECURITY DEFINER: a student reads exam_batches through no policy.

CREATE OR REPLACE FUNCTION app.my_released_submission_ids() RETURNS SETOF uuid
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    RETURN QUERY SELECT s.id FROM exam_submissions s JOIN exam_batches b ON b.id = s.batch_id
      WHERE s.student_id = app.current_user_id() AND s.released_at IS NOT NULL AND b.released_at IS NOT NULL
        AND b.institute_id IN (SELECT app.my_institute_ids());
  END
  $$;
REVOKE ALL ON FUNCTION app.my_released_submission_ids() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app.my_released_submission_ids() TO markbook_app;
