-- Written by hand: who may write a batch's marks and scripts (issue 32, items 5 and 7; server/exam/batch-gate.ts
-- is the same rule in the application, with its sentences).
-- - Writers of a batch: its owner, a department head of its school, and its invited markers (a marker
--   within their allocation, for marks). Other staff of the school read the batch and write nothing of it.
--   Until now a batch without markers was marked by any staff of its school.
-- - app.mark_write_refusal answers 'not_writer' for a caller who is none of them, batch with markers or
--   not; a head writes every mark of a shared batch (no allocation), as the owner does; a pair the caller
--   has reconciled stays theirs to write, whoever holds its claim (the previous migration). It stays without a
--   SET search_path (0021: every name schema-qualified).
-- - A submission is changed only by a writer of its batch (WITH CHECK: a colleague may still lock a
--   submission FOR UPDATE, as a blind second mark does, but not change it).
-- - Students read no submissions and no marks until results are released to them (a later issue).
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
  $$;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.may_write_batch(uuid) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION app.may_write_batch(uuid) TO markbook_app;--> statement-breakpoint

CREATE OR REPLACE FUNCTION app.mark_write_refusal(p_batch uuid, p_submission uuid, p_question uuid) RETURNS text
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  AS $$
  DECLARE
    caller uuid;
    owner uuid;
    institute uuid;
    shared boolean;
    script integer;
  BEGIN
    IF p_batch IS NULL THEN
      RETURN NULL;
    END IF;
    caller := app.current_user_id();
    SELECT teacher_id, institute_id, has_markers INTO owner, institute, shared FROM public.exam_batches
      WHERE id = p_batch AND institute_id IN (SELECT app.my_staff_institute_ids());
    IF NOT FOUND THEN
      RETURN NULL;
    END IF;
    -- A pair the caller has just reconciled is theirs to write (the previous migration's rule, kept).
    IF EXISTS (
      SELECT 1 FROM public.exam_reconciliations r
      WHERE r.submission_id = p_submission AND r.question_id = p_question AND r.batch_id = p_batch AND r.reconciled_by = caller
    ) THEN
      RETURN NULL;
    END IF;
    IF owner IS DISTINCT FROM caller AND institute NOT IN (SELECT app.my_head_institute_ids()) THEN
      IF NOT EXISTS (SELECT 1 FROM public.exam_batch_markers WHERE batch_id = p_batch AND user_id = caller) THEN
        RETURN 'not_writer';
      END IF;
      SELECT script_number INTO script FROM public.exam_submissions WHERE id = p_submission AND batch_id = p_batch;
      IF NOT EXISTS (
        SELECT 1 FROM public.exam_allocations a
        WHERE a.batch_id = p_batch AND a.marker_id = caller
          AND (a.question_id IS NULL OR a.question_id = p_question)
          AND (a.first_script IS NULL OR script >= a.first_script)
          AND (a.last_script IS NULL OR script <= a.last_script)
      ) THEN
        RETURN 'allocation';
      END IF;
    END IF;
    IF shared AND EXISTS (
      SELECT 1 FROM public.exam_mark_claims c
      WHERE c.submission_id = p_submission AND c.question_id = p_question AND c.marker_id <> caller AND c.expires_at > now()
    ) THEN
      RETURN 'claimed';
    END IF;
    RETURN NULL;
  END
  $$;--> statement-breakpoint

DROP POLICY exam_submissions_staff_update ON exam_submissions;--> statement-breakpoint
CREATE POLICY exam_submissions_staff_update ON exam_submissions FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND app.may_write_batch(batch_id));--> statement-breakpoint

DROP POLICY exam_submissions_read ON exam_submissions;--> statement-breakpoint
CREATE POLICY exam_submissions_read ON exam_submissions FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));--> statement-breakpoint
DROP POLICY exam_mark_entries_read ON exam_mark_entries;--> statement-breakpoint
CREATE POLICY exam_mark_entries_read ON exam_mark_entries FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));
