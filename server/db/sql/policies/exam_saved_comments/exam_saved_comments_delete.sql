-- A saved comment is removed by whoever saved it or by the template's owner.

CREATE POLICY exam_saved_comments_delete ON exam_saved_comments FOR DELETE TO markbook_app
  USING (created_by = app.current_user_id() OR template_id IN (SELECT id FROM exam_templates WHERE owner_id = app.current_user_id()));
