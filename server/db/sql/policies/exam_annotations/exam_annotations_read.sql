-- Staff who see a batch read its annotations (the blind second marker's screen asks only for its own
-- layer: server/exam/returns/). A student reads the first marking's annotations of their released scripts.

CREATE POLICY exam_annotations_read ON exam_annotations FOR SELECT TO markbook_app
  USING (batch_id IN (SELECT id FROM exam_batches)
    OR (layer = 'marking' AND submission_id IN (SELECT app.my_released_submission_ids())));;
