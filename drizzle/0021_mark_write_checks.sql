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
