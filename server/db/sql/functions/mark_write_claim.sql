-- What a mark write asks on a batch with markers (server/exam/marks.ts): the refusal, as
-- app.mark_write_refusal answers it, and when there is none, renews the caller's claim on the pair if
-- they hold one. SECURITY DEFINER as mark_write_refusal: the caller's claim row is renewed whatever the
-- claims' policies say (they let a marker update their own claim only through shared-marking.ts'
-- statements).

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
  $$;
REVOKE ALL ON FUNCTION app.mark_write_claim(uuid, uuid, uuid, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app.mark_write_claim(uuid, uuid, uuid, integer) TO markbook_app;
