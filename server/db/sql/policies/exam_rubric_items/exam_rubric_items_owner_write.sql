-- Only a template's owner changes its rubric, as its questions.

CREATE POLICY exam_rubric_items_owner_write ON exam_rubric_items FOR ALL TO markbook_app
  USING (template_id IN (SELECT id FROM exam_templates WHERE owner_id = app.current_user_id()))
  WITH CHECK (template_id IN (SELECT id FROM exam_templates WHERE owner_id = app.current_user_id()));
