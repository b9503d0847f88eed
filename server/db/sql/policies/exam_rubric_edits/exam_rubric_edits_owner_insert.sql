-- A template's owner records an edit of its rubric, as themselves (app.rescore_rubric_marks then
-- re-scores the marks it touches).

CREATE POLICY exam_rubric_edits_owner_insert ON exam_rubric_edits FOR INSERT TO markbook_app
  WITH CHECK (edited_by = app.current_user_id() AND template_id IN (SELECT id FROM exam_templates WHERE owner_id = app.current_user_id()));
