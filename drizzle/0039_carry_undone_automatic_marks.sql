-- An unmatched scan's undone automatic marks go with it when it is given to a student (server/db/sql/functions/carry_undone_automatic_marks.sql).
CREATE OR REPLACE FUNCTION app.carry_undone_automatic_marks(p_from uuid, p_to uuid) RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  DECLARE
    v_batch uuid;
  BEGIN
    SELECT s.batch_id INTO v_batch FROM exam_submissions s WHERE s.id = p_from;
    IF v_batch IS NULL OR NOT app.may_write_batch(v_batch)
      OR NOT EXISTS (SELECT 1 FROM exam_submissions t WHERE t.id = p_to AND t.batch_id = v_batch) THEN
      RAISE EXCEPTION 'not a writer of both submissions'' batch' USING ERRCODE = '42501';
    END IF;
    UPDATE exam_answer_readings r SET automatic_mark_undone = true
      WHERE r.submission_id = p_to AND r.question_id IN (
        SELECT u.question_id FROM exam_answer_readings u WHERE u.submission_id = p_from AND u.automatic_mark_undone);
    UPDATE exam_answer_readings r SET submission_id = p_to
      WHERE r.submission_id = p_from AND r.automatic_mark_undone
        AND NOT EXISTS (SELECT 1 FROM exam_answer_readings o WHERE o.submission_id = p_to AND o.response_area_id = r.response_area_id);
  END
  $$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION app.carry_undone_automatic_marks(uuid, uuid) FROM PUBLIC;
--> statement-breakpoint
GRANT EXECUTE ON FUNCTION app.carry_undone_automatic_marks(uuid, uuid) TO markbook_app;
