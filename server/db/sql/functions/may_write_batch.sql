-- Whether the caller is a writer of the batch: its owner, a department head of its school, or one of its
-- invited markers (server/exam/batch-gate.ts is the same rule in the application, with its sentences).
-- Other staff of the school read the batch and write nothing of it. The policy
-- exam_submissions_staff_update asks it: a submission is changed only by a writer of its batch. No SET
-- search_path: every name is schema-qualified (see app.mark_write_refusal).

CREATE OR REPLACE FUNCTION app.may_write_batch(p_batch uuid) RETURNS boolean
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  AS $$
  DECLARE
    caller uuid := app.current_user_id();
  BEGIN
    RETURN EXISTS (
      SELECT 1 FROM public.exam_batches b
      WHERE b.id = p_batch AND b.institute_id IN (SELECT app.my_staff_institute_ids())
        AND (b.teacher_id = caller
          OR b.institute_id IN (SELECT app.my_head_institute_ids())
          OR EXISTS (SELECT 1 FROM public.exam_batch_markers m WHERE m.batch_id = b.id AND m.user_id = caller))
    );
  END
  $$;
REVOKE ALL ON FUNCTION app.may_write_batch(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app.may_write_batch(uuid) TO markbook_app;
