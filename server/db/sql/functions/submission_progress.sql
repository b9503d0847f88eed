-- The counts behind the status rule of marks (server/exam/marks.ts): the leaf questions of a template
-- and the confirmed marks with a value of a submission on them, but those on `unless_questions`.
-- SECURITY DEFINER, with one check of its own instead of the policies of exam_questions and
-- exam_mark_entries (a dozen subplans at every save, for rows the statement had already been allowed to
-- write): the caller is staff of the school of the submission's batch, which must be of `template`;
-- otherwise both counts are null. STABLE: it reads the calling statement's snapshot. It returns the type
-- app.progress_counts (types/progress_counts.sql).
-- No SET search_path (a save and restore of the setting at every call): every name is schema-qualified,
-- and markbook_app may create nothing to shadow them.

CREATE OR REPLACE FUNCTION app.submission_progress(submission uuid, template uuid, unless_questions uuid[]) RETURNS app.progress_counts
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  AS $$
  DECLARE
    counts app.progress_counts;
  BEGIN
    SELECT
      (SELECT count(*) FROM public.exam_questions q WHERE q.template_id = template AND NOT q.is_container),
      (SELECT count(*) FROM public.exam_mark_entries m JOIN public.exam_questions q ON q.id = m.question_id
        WHERE m.submission_id = submission AND q.template_id = template AND NOT q.is_container
          AND m.confirmed AND m.awarded_marks IS NOT NULL AND m.question_id <> ALL (unless_questions))
    INTO counts.leaves, counts.confirmed
    WHERE EXISTS (
      SELECT FROM public.exam_submissions s JOIN public.exam_batches b ON b.id = s.batch_id
      WHERE s.id = submission AND b.template_id = template AND b.institute_id IN (SELECT app.my_staff_institute_ids())
    );
    RETURN counts;
  END
  $$;
REVOKE ALL ON FUNCTION app.submission_progress(uuid, uuid, uuid[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app.submission_progress(uuid, uuid, uuid[]) TO markbook_app;
