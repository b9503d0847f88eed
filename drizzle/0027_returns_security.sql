-- Written by hand: who reads and writes marked work once it goes back to students (issue 35;
-- server/exam/returns/ is the same rule in the application, with its sentences).
-- - A student reads a script of theirs only once it is released (exam_submissions.released_at, set by the
--   batch's release and cleared by its withdrawal), and of it: the submission, its marks, its first
--   marking's annotations and their own review requests. The paper they sat (template, questions, response
--   areas, rubric items) follows the released script. Before release, nothing: not a row.
-- - exam_batches stays closed to students: every policy keyed on "batch_id IN (SELECT id FROM
--   exam_batches)" would otherwise open the whole batch (other scripts, claims, second marks). A student
--   reads their released batches' headings through app.my_released_batches().
-- - Annotations are written by the batch's writers (app.may_write_batch) as themselves.
-- - A review request is made by the script's student while the batch's reviews are open; answered by the
--   batch's writers.
-- - Every change of a recorded mark is kept in exam_mark_history by a trigger, with the reason the
--   transaction set in app.mark_change_reason.
CREATE OR REPLACE FUNCTION app.my_released_submission_ids() RETURNS SETOF uuid
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    RETURN QUERY SELECT s.id FROM exam_submissions s JOIN exam_batches b ON b.id = s.batch_id
      WHERE s.student_id = app.current_user_id() AND s.released_at IS NOT NULL AND b.released_at IS NOT NULL
        AND b.institute_id IN (SELECT app.my_institute_ids());
  END
  $$;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.my_released_submission_ids() FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION app.my_released_submission_ids() TO markbook_app;--> statement-breakpoint

CREATE OR REPLACE FUNCTION app.my_released_batches()
  RETURNS TABLE (id uuid, title text, template_id uuid, institute_id uuid, anonymous boolean, signed_off boolean, released_at timestamptz, reviews_until timestamptz)
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    RETURN QUERY SELECT b.id, b.title, b.template_id, b.institute_id, b.anonymous, b.signed_off, b.released_at, b.reviews_until
      FROM exam_batches b
      WHERE b.id IN (SELECT s.batch_id FROM exam_submissions s WHERE s.id IN (SELECT app.my_released_submission_ids()));
  END
  $$;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.my_released_batches() FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION app.my_released_batches() TO markbook_app;--> statement-breakpoint

CREATE OR REPLACE FUNCTION app.my_released_template_ids() RETURNS SETOF uuid
  LANGUAGE plpgsql STABLE
  AS $$ BEGIN RETURN QUERY SELECT DISTINCT rb.template_id FROM app.my_released_batches() rb; END $$;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.my_released_template_ids() FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION app.my_released_template_ids() TO markbook_app;--> statement-breakpoint

DROP POLICY exam_submissions_read ON exam_submissions;--> statement-breakpoint
CREATE POLICY exam_submissions_read ON exam_submissions FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches) OR id IN (SELECT app.my_released_submission_ids()));--> statement-breakpoint
DROP POLICY exam_mark_entries_read ON exam_mark_entries;--> statement-breakpoint
CREATE POLICY exam_mark_entries_read ON exam_mark_entries FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches) OR submission_id IN (SELECT app.my_released_submission_ids()));--> statement-breakpoint
DROP POLICY exam_templates_read ON exam_templates;--> statement-breakpoint
CREATE POLICY exam_templates_read ON exam_templates FOR SELECT TO markbook_app
  USING (institute_id IN (SELECT app.my_staff_institute_ids()) OR id IN (SELECT app.my_released_template_ids()));--> statement-breakpoint

ALTER TABLE exam_annotations ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_review_requests ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE exam_mark_history ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON exam_annotations TO markbook_app;--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE ON exam_review_requests TO markbook_app;--> statement-breakpoint
GRANT SELECT ON exam_mark_history TO markbook_app;--> statement-breakpoint

CREATE POLICY exam_annotations_read ON exam_annotations FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches)
    OR (layer = 'marking' AND submission_id IN (SELECT app.my_released_submission_ids())));--> statement-breakpoint
CREATE POLICY exam_annotations_writer_insert ON exam_annotations FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND app.may_write_batch(batch_id) AND author_id = app.current_user_id());--> statement-breakpoint
CREATE POLICY exam_annotations_writer_update ON exam_annotations FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches) AND app.may_write_batch(batch_id))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND app.may_write_batch(batch_id));--> statement-breakpoint
CREATE POLICY exam_annotations_writer_delete ON exam_annotations FOR DELETE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches) AND app.may_write_batch(batch_id));--> statement-breakpoint

CREATE POLICY exam_review_requests_read ON exam_review_requests FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches)
    OR (student_id = app.current_user_id() AND submission_id IN (SELECT app.my_released_submission_ids())));--> statement-breakpoint
CREATE POLICY exam_review_requests_student_insert ON exam_review_requests FOR INSERT TO markbook_app
  WITH CHECK (student_id = app.current_user_id() AND status = 'open'
    AND submission_id IN (SELECT app.my_released_submission_ids())
    AND EXISTS (SELECT 1 FROM app.my_released_batches() rb
      WHERE rb.id = exam_review_requests.batch_id AND rb.reviews_until > now()));--> statement-breakpoint
CREATE POLICY exam_review_requests_writer_update ON exam_review_requests FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND app.may_write_batch(batch_id));--> statement-breakpoint

CREATE POLICY exam_mark_history_read ON exam_mark_history FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches));--> statement-breakpoint

CREATE OR REPLACE FUNCTION app.keep_mark_history() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    INSERT INTO exam_mark_history (batch_id, submission_id, question_id, marks_before, marks_after, changed_by, reason)
      VALUES (NEW.batch_id, NEW.submission_id, NEW.question_id, OLD.awarded_marks, NEW.awarded_marks, app.current_user_id(),
        nullif(current_setting('app.mark_change_reason', true), ''));
    RETURN NULL;
  END
  $$;--> statement-breakpoint
CREATE TRIGGER exam_mark_entries_keep_history AFTER UPDATE OF awarded_marks ON exam_mark_entries
  FOR EACH ROW WHEN (OLD.awarded_marks IS DISTINCT FROM NEW.awarded_marks) EXECUTE FUNCTION app.keep_mark_history();
