-- Why the caller may not write the mark of (submission, question) of a batch, or null (shared marking
-- and the batch gate; server/exam/batch-gate.ts is the same rule in the application, with its
-- sentences). marks.ts reads it as a refusal code, and the restrictive policies of exam_mark_entries
-- enforce it, so a write that skips marks.ts is refused all the same:
-- - 'not_writer': the caller is not a writer of the batch. Writers: its owner, a department head of its
--   school, and its invited markers. Other staff of the school read the batch and write nothing of it.
-- - 'allocation': a marker (neither the owner nor a head) outside their allocation (question, script range).
-- - 'claimed': on a batch with markers, another marker holds an unexpired claim on the pair.
-- - 'reconciled': the pair was reconciled in moderation (exam_reconciliations) by someone else: its final
--   mark is the moderator's, and no marker's later save overwrites it. The moderator who reconciled it
--   writes it, whoever holds its claim; another moderator changes it by reconciling it again. It answers null for a batch outside the caller's school (the other policies
-- refuse there), so it tells nothing about another school.
-- SECURITY DEFINER: a policy of exam_mark_entries reads markers, allocations and claims whatever the
-- caller may read. No SET search_path, because it is asked per row of every mark write and a SET clause
-- saves and restores the setting at every call (about 5 % of typed saves' rate, bench:exam): every name
-- is schema-qualified instead, so the caller's search_path cannot redirect it (operators and now() are
-- pg_catalog's, which is searched first).

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
REVOKE ALL ON FUNCTION app.mark_write_refusal(uuid, uuid, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app.mark_write_refusal(uuid, uuid, uuid) TO markbook_app;
