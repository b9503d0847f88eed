-- Staff of a school read its templates.

CREATE POLICY exam_templates_read ON exam_templates FOR SELECT TO markbook_app
  USING (institute_id IN (SELECT app.my_staff_institute_ids()));
