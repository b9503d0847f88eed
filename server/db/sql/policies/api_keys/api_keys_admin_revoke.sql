-- A school admin revokes the speech API keys of the institutes they administer, whoever made them.
-- Revoking is the only change the app makes to a key: markbook_app's update grant is on revoked_at
-- only (last_used_at is written by the service).

CREATE POLICY api_keys_admin_revoke ON api_keys FOR UPDATE TO markbook_app
  USING (institute_id IN (SELECT app.my_admin_institute_ids()))
  WITH CHECK (institute_id IN (SELECT app.my_admin_institute_ids()));
