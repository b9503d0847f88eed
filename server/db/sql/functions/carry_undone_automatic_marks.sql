-- When an unmatched scan is given to a student (server/exam/assign-scan.ts), which automatic marks the
-- marker undid on it go with it: each such question's reading is moved to the student's submission (or
-- the reading the student's submission already has for that area is marked undone), so the reading job
-- that reads the merged script keeps them undone (server/exam/answers/automatic-marks.ts). Readings are
-- otherwise the service's to write; the caller must be a writer of the batch both submissions are in.

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
REVOKE ALL ON FUNCTION app.carry_undone_automatic_marks(uuid, uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app.carry_undone_automatic_marks(uuid, uuid) TO markbook_app;
