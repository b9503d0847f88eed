-- Written by hand: what shared marking costs a mark write of a batch without markers, made constant.
-- - The restrictive policies of 0020 read every batch of the school visible to the caller (a hashed
--   list of the batches without markers) for each write statement, and planned exam_batches' own
--   policies into every write: a cost that grew with the school's batches. They now ask
--   app.mark_write_refusal per row, as 0018 did; its first question is an index probe of
--   exam_batch_markers, so a batch without markers costs one lookup.
-- - A marker's write renewed their claim in a CTE of every write statement (an UPDATE with the claims'
--   policies planned in, whether the batch was shared or not). app.mark_write_claim does it, called by
--   the write only for a batch with markers (marks.ts): it answers the refusal, as mark_write_refusal,
--   and when there is none, renews the caller's claim on the pair if they hold one.
-- - app.mark_write_refusal, now asked per row of every write, is redefined without its
--   `SET search_path`: a function with a SET clause saves and restores the setting at every call, which
--   cost typed saves about 5 % of their rate (bench:exam's 32 teachers, in the same run, 2026-11-28).
--   Every name in it is schema-qualified instead, so the caller's search_path cannot redirect it
--   (relations and functions are named with their schema; operators and now() are pg_catalog's, which
--   is searched first).
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
  $$;--> statement-breakpoint
DROP POLICY exam_mark_entries_shared_insert ON exam_mark_entries;--> statement-breakpoint
DROP POLICY exam_mark_entries_shared_update ON exam_mark_entries;--> statement-breakpoint
CREATE POLICY exam_mark_entries_shared_insert ON exam_mark_entries AS RESTRICTIVE FOR INSERT TO markbook_app
  WITH CHECK (app.mark_write_refusal(batch_id, submission_id, question_id) IS NULL);--> statement-breakpoint
CREATE POLICY exam_mark_entries_shared_update ON exam_mark_entries AS RESTRICTIVE FOR UPDATE TO markbook_app
  USING (true)
  WITH CHECK (app.mark_write_refusal(batch_id, submission_id, question_id) IS NULL);--> statement-breakpoint

-- SECURITY DEFINER as mark_write_refusal: the caller's claim row is renewed whatever the claims'
-- policies say (they let a marker update their own claim only through shared-marking.ts' statements).
CREATE OR REPLACE FUNCTION app.mark_write_claim(p_batch uuid, p_submission uuid, p_question uuid, p_claim_seconds integer) RETURNS text
  LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  DECLARE
    refusal text := app.mark_write_refusal(p_batch, p_submission, p_question);
  BEGIN
    IF refusal IS NULL THEN
      UPDATE exam_mark_claims SET expires_at = now() + make_interval(secs => p_claim_seconds)
        WHERE submission_id = p_submission AND question_id = p_question AND marker_id = app.current_user_id();
    END IF;
    RETURN refusal;
  END
  $$;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.mark_write_claim(uuid, uuid, uuid, integer) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION app.mark_write_claim(uuid, uuid, uuid, integer) TO markbook_app;
