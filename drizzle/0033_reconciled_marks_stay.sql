-- Written by hand: a mark reconciled in moderation stays the moderator's. app.mark_write_refusal let any
-- writer of the batch (the first marker among them) save the pair again after a moderator had set its
-- final mark, overwriting it; it now answers 'reconciled' to everyone but the moderator who reconciled it
-- (another moderator reconciles it again). The policies of exam_mark_entries and the mark write
-- (server/exam/marks.ts) read the refusal, so every path keeps it.
CREATE OR REPLACE FUNCTION app.mark_write_refusal(p_batch uuid, p_submission uuid, p_question uuid) RETURNS text
  LANGUAGE plpgsql STABLE SECURITY DEFINER
  AS $$
  DECLARE
    caller uuid;
    owner uuid;
    institute uuid;
    shared boolean;
    script integer;
    reconciler uuid;
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
    -- A reconciled pair is its moderator's to write, and no one else's.
    SELECT r.reconciled_by INTO reconciler FROM public.exam_reconciliations r
      WHERE r.submission_id = p_submission AND r.question_id = p_question AND r.batch_id = p_batch;
    IF FOUND THEN
      RETURN CASE WHEN reconciler = caller THEN NULL ELSE 'reconciled' END;
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
  $$;
