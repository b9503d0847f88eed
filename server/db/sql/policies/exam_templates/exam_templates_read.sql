-- Staff of a school read its templates; a student reads the papers of their released scripts.

CREATE POLICY exam_templates_read ON exam_templates FOR SELECT TO markbook_app
  USING (institute_id IN (SELECT app.my_staff_institute_ids()) OR id IN (SELECT app.my_released_template_ids()));;
