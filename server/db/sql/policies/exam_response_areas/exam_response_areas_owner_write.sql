-- Only a template's owner changes its response areas.

CREATE POLICY exam_response_areas_owner_write ON exam_response_areas FOR ALL TO markbook_app
  USING (template_id IN (SELECT id FROM exam_templates WHERE owner_id = app.current_user_id()))
  WITH CHECK (template_id IN (SELECT id FROM exam_templates WHERE owner_id = app.current_user_id()));
