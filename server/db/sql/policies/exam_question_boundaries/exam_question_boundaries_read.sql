-- Staff who see a template read its question boundaries.

CREATE POLICY exam_question_boundaries_read ON exam_question_boundaries FOR SELECT TO markbook_app
  USING (template_id IN (SELECT id FROM exam_templates));
