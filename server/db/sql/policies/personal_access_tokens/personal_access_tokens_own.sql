-- A user reads, creates and revokes their own personal access tokens only.

CREATE POLICY personal_access_tokens_own ON personal_access_tokens FOR ALL TO markbook_app
  USING (user_id = app.current_user_id())
  WITH CHECK (user_id = app.current_user_id());
