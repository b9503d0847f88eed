-- Staff who see a template read its rubric, as its questions.

CREATE POLICY exam_rubric_items_read ON exam_rubric_items FOR SELECT TO markbook_app
  USING (template_id IN (SELECT id FROM exam_templates));
