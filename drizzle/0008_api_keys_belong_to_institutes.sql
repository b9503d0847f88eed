-- Speech API keys belong to an institute (its school admins list and revoke them) or, with institute_id
-- null, to the installation (only the command line, with the service's rights, sees them). Before this,
-- every school admin saw every school's keys, and revoking a key another admin made broke the policy's
-- WITH CHECK (created_by = caller) and answered 500.
ALTER TABLE "api_keys" ADD COLUMN "institute_id" uuid;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "deactivated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_institute_id_institutes_id_fk" FOREIGN KEY ("institute_id") REFERENCES "public"."institutes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_institute_idx" ON "api_keys" USING btree ("institute_id");--> statement-breakpoint

-- Existing keys: the school of their creator when the creator is a school admin of exactly one
-- institute; any other key (made with the CLI, by an admin of several schools, or by a user since
-- deleted) stays an installation key, which no app user sees.
UPDATE api_keys SET institute_id = sole.institute_id
FROM (
  SELECT user_id, (array_agg(DISTINCT institute_id))[1] AS institute_id
  FROM institute_memberships
  WHERE role = 'school_admin'
  GROUP BY user_id
  HAVING count(DISTINCT institute_id) = 1
) AS sole
WHERE api_keys.created_by = sole.user_id AND api_keys.institute_id IS NULL;--> statement-breakpoint

-- A school admin reads, creates and revokes the keys of the institutes they administer, whoever made
-- them; installation keys (institute_id null) match no institute, so no app user reaches them. A key
-- of another school is simply not there: revoking it updates no row (404), never a policy violation.
DROP POLICY api_keys_admin ON api_keys;--> statement-breakpoint
CREATE POLICY api_keys_admin_read ON api_keys FOR SELECT TO markbook_app
  USING (institute_id IN (SELECT app.my_admin_institute_ids()));--> statement-breakpoint
CREATE POLICY api_keys_admin_insert ON api_keys FOR INSERT TO markbook_app
  WITH CHECK (institute_id IN (SELECT app.my_admin_institute_ids()) AND created_by = app.current_user_id());--> statement-breakpoint
CREATE POLICY api_keys_admin_revoke ON api_keys FOR UPDATE TO markbook_app
  USING (institute_id IN (SELECT app.my_admin_institute_ids()))
  WITH CHECK (institute_id IN (SELECT app.my_admin_institute_ids()));--> statement-breakpoint
-- Revoking is the only change the app makes to a key (last_used_at is written by the service).
REVOKE UPDATE ON api_keys FROM markbook_app;--> statement-breakpoint
GRANT UPDATE (revoked_at) ON api_keys TO markbook_app;--> statement-breakpoint

-- A deactivated user (users.deactivated_at set) is refused like a deleted one, with a state of its own
-- so that the message says which. Same signature as in 0005; the grants stay.
CREATE OR REPLACE FUNCTION app.user_token_state(token_user_id uuid, token_id uuid) RETURNS text
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  DECLARE
    deactivated timestamptz;
  BEGIN
    SELECT deactivated_at INTO deactivated FROM users WHERE id = token_user_id;
    IF NOT FOUND THEN
      RETURN 'unknown_user';
    END IF;
    IF deactivated IS NOT NULL THEN
      RETURN 'deactivated';
    END IF;
    IF token_id IS NOT NULL AND NOT EXISTS (
      SELECT 1 FROM personal_access_tokens
      WHERE id = token_id AND user_id = token_user_id AND revoked_at IS NULL AND expires_at > now()
    ) THEN
      RETURN 'revoked';
    END IF;
    RETURN 'live';
  END
  $$;
