-- Staff who see a template read its questions.

CREATE POLICY exam_questions_read ON exam_questions FOR SELECT TO markbook_app
  USING (template_id IN (SELECT id FROM exam_templates));
