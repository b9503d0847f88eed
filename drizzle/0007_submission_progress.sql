-- The counts behind the status rule of marks (server/exam/marks.ts): the leaf questions of a template
-- and the confirmed marks with a value of a submission on them, but those on `unless_questions`. A mark
-- save counted them in subqueries of its own statement, where the policies of exam_questions (twice)
-- and exam_mark_entries added a dozen subplans to set up and run at every save, for rows the statement
-- had already been allowed to write. SECURITY DEFINER, with one check of its own instead: the caller
-- is staff of the school of the submission's batch, which must be of `template`; otherwise both counts
-- are null. STABLE: it reads the calling statement's snapshot, as the subqueries did. A named type, so
-- that a statement can keep the pair in a column (an anonymous record cannot be read back from a CTE).
CREATE TYPE app.progress_counts AS (leaves int, confirmed int);--> statement-breakpoint
-- No SET search_path (a save and restore of the setting at every call): every name below is
-- schema-qualified, and markbook_app may create nothing to shadow them. One query for the check and
-- both counts.
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
  $$;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.submission_progress(uuid, uuid, uuid[]) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION app.submission_progress(uuid, uuid, uuid[]) TO markbook_app;
