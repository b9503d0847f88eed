-- Written by hand: a review request is filled in by the database from the script it names (issue 35,
-- item 6; server/exam/returns/review-requests.ts). The student who asks reads nothing of the batch's
-- marking: its markers, allocations and sign-off are not theirs to see, so the row's batch, its mark
-- before and who it goes to are set here, not taken from the client:
-- - batch_id: the script's batch;
-- - marks_before: the question's mark as it stands;
-- - assigned_to: a signed-off batch's requests go to its department heads (assigned_to null, and the heads'
--   queue shows them); otherwise the marker whose allocation covers the question and the script (the one
--   invited first, when several do), else the batch's owner.
CREATE OR REPLACE FUNCTION app.fill_review_request() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  DECLARE
    v_batch exam_batches%ROWTYPE;
    v_script integer;
  BEGIN
    SELECT b.* INTO v_batch FROM exam_batches b JOIN exam_submissions s ON s.batch_id = b.id WHERE s.id = NEW.submission_id;
    SELECT s.script_number INTO v_script FROM exam_submissions s WHERE s.id = NEW.submission_id;
    NEW.batch_id := v_batch.id;
    NEW.marks_before := (SELECT m.awarded_marks FROM exam_mark_entries m WHERE m.submission_id = NEW.submission_id AND m.question_id = NEW.question_id);
    IF v_batch.signed_off THEN
      NEW.assigned_to := NULL;
    ELSE
      NEW.assigned_to := coalesce(
        (SELECT a.marker_id FROM exam_allocations a JOIN exam_batch_markers m ON m.batch_id = a.batch_id AND m.user_id = a.marker_id
          WHERE a.batch_id = v_batch.id
            AND (a.question_id IS NULL OR a.question_id = NEW.question_id)
            AND (a.first_script IS NULL OR v_script >= a.first_script)
            AND (a.last_script IS NULL OR v_script <= a.last_script)
          ORDER BY m.added_at, a.marker_id LIMIT 1),
        v_batch.teacher_id);
    END IF;
    RETURN NEW;
  END
  $$;--> statement-breakpoint
CREATE TRIGGER exam_review_requests_fill BEFORE INSERT ON exam_review_requests
  FOR EACH ROW EXECUTE FUNCTION app.fill_review_request();
