-- Staff who see a template save comments on its questions, as themselves.

CREATE POLICY exam_saved_comments_staff_insert ON exam_saved_comments FOR INSERT TO markbook_app
  WITH CHECK (created_by = app.current_user_id() AND template_id IN (SELECT id FROM exam_templates));
