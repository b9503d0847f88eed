-- Written by hand: a moderator's final mark on a batch whose marking is shared (issue 32).
-- Reconciling (moderation.ts, reconcileMark) records the final mark in exam_reconciliations (its own
-- policies: the batch's owner or a department head of its school, as reconciled_by) and then writes it
-- into exam_mark_entries as the moderator's. On a batch with markers the restrictive policies asked
-- app.mark_write_refusal, which let only the owner and the allocated markers write: a department head
-- who is not a marker was refused by row-level security (a 500), and a claim held by a marker on the
-- pair refused the owner too. A pair the caller has reconciled is now theirs to write: the function
-- answers null for it before the allocation and claim rules, which stay as they were for every other
-- write. The reconciliation row is written first in the same transaction, so the write sees it.
-- Kept without a SET clause and with every name schema-qualified, as the previous migration explains.
CREATE OR REPLACE FUNCTION app.mark_write_refusal(p_batch uuid, p_submission uuid, p_question uuid) RETURNS text
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  AS $$
  DECLARE
    caller uuid;
    owner uuid;
    script integer;
  BEGIN
    IF p_batch IS NULL OR NOT EXISTS (SELECT 1 FROM public.exam_batch_markers WHERE batch_id = p_batch) THEN
      RETURN NULL;
    END IF;
    caller := app.current_user_id();
    SELECT teacher_id INTO owner FROM public.exam_batches
      WHERE id = p_batch AND institute_id IN (SELECT app.my_staff_institute_ids());
    IF NOT FOUND THEN
      RETURN NULL;
    END IF;
    IF EXISTS (
      SELECT 1 FROM public.exam_reconciliations r
      WHERE r.submission_id = p_submission AND r.question_id = p_question AND r.batch_id = p_batch AND r.reconciled_by = caller
    ) THEN
      RETURN NULL;
    END IF;
    IF owner IS DISTINCT FROM caller THEN
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
    IF EXISTS (
      SELECT 1 FROM public.exam_mark_claims c
      WHERE c.submission_id = p_submission AND c.question_id = p_question AND c.marker_id <> caller AND c.expires_at > now()
    ) THEN
      RETURN 'claimed';
    END IF;
    RETURN NULL;
  END
  $$;
