-- A school admin creates speech API keys for an institute they administer, as themselves.

CREATE POLICY api_keys_admin_insert ON api_keys FOR INSERT TO markbook_app
  WITH CHECK (institute_id IN (SELECT app.my_admin_institute_ids()) AND created_by = app.current_user_id());
