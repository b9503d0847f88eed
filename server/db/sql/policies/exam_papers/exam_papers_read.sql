-- The exam paper catalogue is read by every signed-in user.

CREATE POLICY exam_papers_read ON exam_papers FOR SELECT TO markbook_app
  USING (app.current_user_id() IS NOT NULL);
