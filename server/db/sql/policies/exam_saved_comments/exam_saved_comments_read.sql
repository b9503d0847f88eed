-- Staff who see a template read its questions' saved comments (the comment bank).

CREATE POLICY exam_saved_comments_read ON exam_saved_comments FOR SELECT TO markbook_app
  USING (template_id IN (SELECT id FROM exam_templates));
