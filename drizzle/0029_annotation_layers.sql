-- Written by hand: the blind second marking's annotations (issue 35, item 1; server/exam/returns/annotations.ts
-- is the same rule in the application, with its sentences). The previous policies let every member of staff
-- who sees a batch read every layer, and only the batch's writers draw. Now:
-- - a shape of the first marking (layer marking) is read by staff who see the batch and drawn, moved and
--   removed by its writers (app.may_write_batch), as before;
-- - a shape of the second marking (layer second_marking) is its author's: any staff member who sees the
--   batch second-marks (as exam_second_marks), so any may draw one as themselves, and only its author reads,
--   moves or removes it; the batch's moderators read it too (as they read second marks), never its first
--   marker through the first marking's reads.
-- - the student's read of their released script's first-marking shapes is unchanged.
DROP POLICY exam_annotations_read ON exam_annotations;--> statement-breakpoint
CREATE POLICY exam_annotations_read ON exam_annotations FOR SELECT TO markbook_app
  USING ((batch_id IN (SELECT id FROM exam_batches)
      AND (layer = 'marking' OR author_id = app.current_user_id() OR batch_id IN (SELECT app.my_moderated_batch_ids())))
    OR (layer = 'marking' AND submission_id IN (SELECT app.my_released_submission_ids())));--> statement-breakpoint
DROP POLICY exam_annotations_writer_insert ON exam_annotations;--> statement-breakpoint
CREATE POLICY exam_annotations_writer_insert ON exam_annotations FOR INSERT TO markbook_app
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches) AND author_id = app.current_user_id()
    AND (layer = 'second_marking' OR app.may_write_batch(batch_id)));--> statement-breakpoint
DROP POLICY exam_annotations_writer_update ON exam_annotations;--> statement-breakpoint
CREATE POLICY exam_annotations_writer_update ON exam_annotations FOR UPDATE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches)
    AND ((layer = 'marking' AND app.may_write_batch(batch_id)) OR (layer = 'second_marking' AND author_id = app.current_user_id())))
  WITH CHECK (batch_id IN (SELECT id FROM exam_batches)
    AND ((layer = 'marking' AND app.may_write_batch(batch_id)) OR (layer = 'second_marking' AND author_id = app.current_user_id())));--> statement-breakpoint
DROP POLICY exam_annotations_writer_delete ON exam_annotations;--> statement-breakpoint
CREATE POLICY exam_annotations_writer_delete ON exam_annotations FOR DELETE TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches)
    AND ((layer = 'marking' AND app.may_write_batch(batch_id)) OR (layer = 'second_marking' AND author_id = app.current_user_id())));
