-- Trigger of exam_review_requests: fills a new request from the script it names: its batch, the mark
-- before, and who it goes to (a signed-off batch's heads: null; else the moderator who set the pair's
-- final mark, the only one who may change it; else the marker whose allocation covers the question and
-- script, invited first; else the owner). SECURITY DEFINER: the student who asks reads
-- none of the batch's marking.

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
        (SELECT r.reconciled_by FROM exam_reconciliations r WHERE r.submission_id = NEW.submission_id AND r.question_id = NEW.question_id),
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
  $$;
