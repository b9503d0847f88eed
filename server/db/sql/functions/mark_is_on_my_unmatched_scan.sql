-- Whether a mark sits on a student-less submission (an unmatched scan) of a batch the caller owns:
-- assigning the scan to a student afterwards (server/exam/assign-scan.ts) moves its marks and keeps who
-- gave them (the policy exam_mark_entries_owner_moves_unmatched). Judged on the row before the update: a
-- STABLE function reads the statement's snapshot. SECURITY DEFINER: a policy of exam_mark_entries cannot
-- query exam_mark_entries under row-level security (recursion).

CREATE OR REPLACE FUNCTION app.mark_is_on_my_unmatched_scan(mark_id uuid) RETURNS boolean
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    RETURN EXISTS (
      SELECT 1 FROM exam_mark_entries m
        JOIN exam_submissions s ON s.id = m.submission_id
        JOIN exam_batches b ON b.id = s.batch_id
      WHERE m.id = mark_id AND s.student_id IS NULL AND b.teacher_id = app.current_user_id()
    );
  END
  $$;
REVOKE ALL ON FUNCTION app.mark_is_on_my_unmatched_scan(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION app.mark_is_on_my_unmatched_scan(uuid) TO markbook_app;
