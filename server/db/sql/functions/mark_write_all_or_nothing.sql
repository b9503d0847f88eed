-- A write of several marks that must be all or nothing (server/exam/answers/: a group's answer set at
-- once): called in the answer of upsertMarks' statement for every write, it raises when a write was
-- refused, so the whole transaction rolls back; the message carries the write (`p_write`: its refusal,
-- position, question label and max marks as JSON), which marks.ts reads back into the caller's
-- sentence. True otherwise.

CREATE OR REPLACE FUNCTION app.mark_write_all_or_nothing(p_refusal text, p_write text) RETURNS boolean
  LANGUAGE plpgsql VOLATILE
  AS $$
  BEGIN
    IF p_refusal IS NOT NULL THEN
      RAISE EXCEPTION 'mark write refused %', p_write USING ERRCODE = 'P0001';
    END IF;
    RETURN true;
  END
  $$;
REVOKE ALL ON FUNCTION app.mark_write_all_or_nothing(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app.mark_write_all_or_nothing(text, text) TO markbook_app;
