-- Staff who see a template read its response areas.

CREATE POLICY exam_response_areas_read ON exam_response_areas FOR SELECT TO markbook_app
  USING (template_id IN (SELECT id FROM exam_templates));
