-- Staff who see a batch read its first marking's annotations; a blind second marker's shapes (layer
-- second_marking) only their author and the batch's moderators (as exam_second_marks). A student reads
-- the first marking's annotations of their released scripts. server/exam/returns/annotations.ts lists a
-- second marker's own shapes only.

CREATE POLICY exam_annotations_read ON exam_annotations FOR SELECT TO markbook_app
  USING ((batch_id IN (SELECT id FROM exam_batches)
      AND (layer = 'marking' OR author_id = app.current_user_id() OR batch_id IN (SELECT app.my_moderated_batch_ids())))
    OR (layer = 'marking' AND submission_id IN (SELECT app.my_released_submission_ids())));
