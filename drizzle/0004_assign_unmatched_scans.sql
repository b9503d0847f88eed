-- Assigning an unmatched scan to a student afterwards (server/exam/assign-scan.ts): the scan and its
-- marks move to the student's submission and the student-less row is deleted, all as the caller.

-- The batch owner may delete a submission that has no student (an unmatched scan of their batch).
-- Roster submissions (with a student) are never deleted by the app.
GRANT DELETE ON exam_submissions TO markbook_app;--> statement-breakpoint
CREATE POLICY exam_submissions_owner_delete_unmatched ON exam_submissions FOR DELETE TO markbook_app
  USING (student_id IS NULL AND batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()));--> statement-breakpoint

-- Moving marks keeps who gave them. The staff update policy requires marked_by_user_id to become the
-- caller, so the owner may in addition update a mark that sits on a student-less submission of their
-- batch (judged on the row before the update: a STABLE function reads the statement's snapshot), as
-- long as it stays on a submission of the same batch. SECURITY DEFINER: a policy of
-- exam_mark_entries cannot query exam_mark_entries under row-level security (recursion).
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
  $$;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.mark_is_on_my_unmatched_scan(uuid) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION app.mark_is_on_my_unmatched_scan(uuid) TO markbook_app;--> statement-breakpoint
CREATE POLICY exam_mark_entries_owner_moves_unmatched ON exam_mark_entries FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches WHERE teacher_id = app.current_user_id()))
  WITH CHECK (
    app.mark_is_on_my_unmatched_scan(id)
    AND submission_id IN (SELECT s.id FROM exam_submissions s WHERE s.batch_id = exam_mark_entries.batch_id)
  );
