-- Staff who see a template read its rubric's edit history.

CREATE POLICY exam_rubric_edits_read ON exam_rubric_edits FOR SELECT TO markbook_app
  USING (template_id IN (SELECT id FROM exam_templates));
