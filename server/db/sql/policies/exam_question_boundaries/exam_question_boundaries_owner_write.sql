-- Only a template's owner changes its question boundaries.

CREATE POLICY exam_question_boundaries_owner_write ON exam_question_boundaries FOR ALL TO markbook_app
  USING (template_id IN (SELECT id FROM exam_templates WHERE owner_id = app.current_user_id()))
  WITH CHECK (template_id IN (SELECT id FROM exam_templates WHERE owner_id = app.current_user_id()));
