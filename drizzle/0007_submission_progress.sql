-- The counts behind the status rule of marks (server/exam/marks.ts): the leaf questions of a template
-- and the confirmed marks with a value of a submission on them, but those on `unless_questions`. A mark
-- save counted them in subqueries of its own statement, where the policies of exam_questions (twice)
-- and exam_mark_entries added a dozen subplans to set up and run at every save, for rows the statement
-- had already been allowed to write. SECURITY DEFINER, with one check of its own instead: the caller
-- is staff of the school of the submission's batch, which must be of `template`; otherwise both counts
-- are null. STABLE: it reads the calling statement's snapshot, as the subqueries did. A named type, so
-- that a statement can keep the pair in a column (an anonymous record cannot be read back from a CTE).
CREATE TYPE app.progress_counts AS (leaves int, confirmed int);--> statement-breakpoint
CREATE OR REPLACE FUNCTION app.submission_progress(submission uuid, template uuid, unless_questions uuid[]) RETURNS app.progress_counts
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  DECLARE
    counts app.progress_counts;
  BEGIN
    IF NOT EXISTS (
      SELECT FROM exam_submissions s JOIN exam_batches b ON b.id = s.batch_id
      WHERE s.id = submission AND b.template_id = template AND b.institute_id IN (SELECT app.my_staff_institute_ids())
    ) THEN
      RETURN NULL;
    END IF;
    SELECT count(*) INTO counts.leaves FROM exam_questions q WHERE q.template_id = template AND NOT q.is_container;
    SELECT count(*) INTO counts.confirmed FROM exam_mark_entries m JOIN exam_questions q ON q.id = m.question_id
      WHERE m.submission_id = submission AND q.template_id = template AND NOT q.is_container
        AND m.confirmed AND m.awarded_marks IS NOT NULL AND m.question_id <> ALL (unless_questions);
    RETURN counts;
  END
  $$;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.submission_progress(uuid, uuid, uuid[]) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION app.submission_progress(uuid, uuid, uuid[]) TO markbook_app;
