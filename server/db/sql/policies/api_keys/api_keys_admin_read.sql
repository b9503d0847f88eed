-- A school admin reads the speech API keys of the institutes they administer, whoever made them.
-- Installation keys (institute_id null) match no institute: only the command line, with the service's
-- rights, sees them. A key of another school is simply not there (revoking it updates no row: 404).

CREATE POLICY api_keys_admin_read ON api_keys FOR SELECT TO markbook_app
  USING (institute_id IN (SELECT app.my_admin_institute_ids()));
