CREATE TABLE "sign_in_failures" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" integer NOT NULL,
	"last_failed_at" timestamp (3) with time zone NOT NULL,
	"blocked_until" timestamp (3) with time zone,
	"forget_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sign_in_failures" ENABLE ROW LEVEL SECURITY;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "personal_node_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "sign_in_failures_forget_at_idx" ON "sign_in_failures" USING btree ("forget_at");--> statement-breakpoint

-- The table and the column above are from drizzle-kit generate (server/db/schema/identity.ts); what follows
-- is written by hand (issue 32: password guessing, tokens at a reset, every user's own graph node).

-- Failed password sign-ins per key (server/auth/sign-in-throttle.ts). Only these SECURITY DEFINER
-- functions read and write sign_in_failures: no grant to markbook_app, and row-level security without a
-- policy. They are called with the service's connection (a sign-in has no user yet), never as markbook_app.

-- Counts one failure of `failure_key` at `failed_at` and answers the count and until when the key is
-- refused. A count whose forget_at has passed starts again at 1. From `free_failures` failures on, the
-- key waits 2^(failures - free_failures) seconds (at most `max_delay`) after this failure; from
-- `lock_after` failures on it is locked for `lock_for`. The row's lock orders concurrent failures of a
-- key from any node, so none is lost.
CREATE OR REPLACE FUNCTION app.count_sign_in_failure(
  failure_key text, failed_at timestamptz, forget_after interval,
  free_failures integer, max_delay interval, lock_after integer, lock_for interval)
  RETURNS TABLE (failures integer, blocked_until timestamptz)
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  #variable_conflict use_column
  DECLARE
    counted integer;
    refused_until timestamptz;
  BEGIN
    INSERT INTO sign_in_failures AS f (key, failures, last_failed_at, blocked_until, forget_at)
    VALUES (failure_key, 1, failed_at, NULL, failed_at + forget_after)
    ON CONFLICT (key) DO UPDATE SET
      failures = CASE WHEN f.forget_at <= failed_at THEN 1 ELSE f.failures + 1 END,
      last_failed_at = failed_at,
      forget_at = failed_at + forget_after
    RETURNING f.failures INTO counted;
    refused_until := CASE
      WHEN counted >= lock_after THEN failed_at + lock_for
      WHEN counted >= free_failures THEN failed_at + least(max_delay, make_interval(secs => power(2, least(counted - free_failures, 30))))
      ELSE NULL
    END;
    UPDATE sign_in_failures AS f SET blocked_until = refused_until WHERE f.key = failure_key;
    RETURN QUERY SELECT counted, refused_until;
  END
  $$;--> statement-breakpoint

-- The latest time until which any of these keys is refused at `at`, or NULL when none is.
CREATE OR REPLACE FUNCTION app.sign_in_blocked_until(failure_keys text[], at timestamptz) RETURNS timestamptz
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
    SELECT max(f.blocked_until) FROM sign_in_failures f
    WHERE f.key = ANY (failure_keys) AND f.blocked_until > at AND f.forget_at > at
  $$;--> statement-breakpoint

-- A successful sign-in forgets the failures of its account (and of the known device it came from).
CREATE OR REPLACE FUNCTION app.forget_sign_in_failures(failure_keys text[]) RETURNS void
  LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$ DELETE FROM sign_in_failures WHERE key = ANY (failure_keys) $$;--> statement-breakpoint

-- Deletes the counts that are forgotten and no longer refuse anything; called now and then, not at
-- every sign-in. Answers how many.
CREATE OR REPLACE FUNCTION app.forget_old_sign_in_failures(before timestamptz) RETURNS integer
  LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
    WITH forgotten AS (
      DELETE FROM sign_in_failures WHERE forget_at < before AND (blocked_until IS NULL OR blocked_until < before) RETURNING 1
    )
    SELECT count(*)::integer FROM forgotten
  $$;--> statement-breakpoint

REVOKE ALL ON FUNCTION app.count_sign_in_failure(text, timestamptz, interval, integer, interval, integer, interval) FROM PUBLIC;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.sign_in_blocked_until(text[], timestamptz) FROM PUBLIC;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.forget_sign_in_failures(text[]) FROM PUBLIC;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.forget_old_sign_in_failures(timestamptz) FROM PUBLIC;--> statement-breakpoint

-- A bearer token is refused once the password changed after it was issued (an admin's reset or the
-- user's own change): 'password_changed'. A token issued after a reset, while the user still holds the
-- temporary password, is held at "choose your password" as a session is: 'must_choose_password'.
-- `token_issued_at` NULL (a token without iat) counts as issued before any change. The two-argument
-- version stays for a node of the previous version during a rolling update; this version's code calls
-- only this one.
CREATE OR REPLACE FUNCTION app.user_token_state(token_user_id uuid, token_id uuid, token_issued_at timestamptz) RETURNS text
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  DECLARE
    deactivated timestamptz;
    changed timestamptz;
    must_choose boolean;
  BEGIN
    SELECT deactivated_at, password_changed_at, must_change_password INTO deactivated, changed, must_choose
      FROM users WHERE id = token_user_id;
    IF NOT FOUND THEN
      RETURN 'unknown_user';
    END IF;
    IF deactivated IS NOT NULL THEN
      RETURN 'deactivated';
    END IF;
    IF changed IS NOT NULL AND (token_issued_at IS NULL OR token_issued_at < changed) THEN
      RETURN 'password_changed';
    END IF;
    IF token_id IS NOT NULL AND NOT EXISTS (
      SELECT 1 FROM personal_access_tokens
      WHERE id = token_id AND user_id = token_user_id AND revoked_at IS NULL AND expires_at > now()
    ) THEN
      RETURN 'revoked';
    END IF;
    IF must_choose THEN
      RETURN 'must_choose_password';
    END IF;
    RETURN 'live';
  END
  $$;--> statement-breakpoint
REVOKE ALL ON FUNCTION app.user_token_state(uuid, uuid, timestamptz) FROM PUBLIC;--> statement-breakpoint

-- A password change revokes the user's personal access tokens created before it, so that their list
-- says so (the check above refuses them anyway). SECURITY DEFINER: the admin who resets a password may
-- not write another user's tokens under row-level security.
CREATE OR REPLACE FUNCTION app.revoke_tokens_at_password_change() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  BEGIN
    UPDATE personal_access_tokens SET revoked_at = NEW.password_changed_at
      WHERE user_id = NEW.id AND revoked_at IS NULL AND created_at < NEW.password_changed_at;
    RETURN NEW;
  END
  $$;--> statement-breakpoint
CREATE TRIGGER users_password_change_revokes_tokens AFTER UPDATE OF password_changed_at ON users
  FOR EACH ROW WHEN (NEW.password_changed_at IS NOT NULL AND NEW.password_changed_at IS DISTINCT FROM OLD.password_changed_at)
  EXECUTE FUNCTION app.revoke_tokens_at_password_change();--> statement-breakpoint
REVOKE ALL ON FUNCTION app.revoke_tokens_at_password_change() FROM PUBLIC;--> statement-breakpoint

-- drizzle names every column in an insert (DEFAULT for those not given), and the app's insert grant
-- names columns (0011): a new user's personal_node_at is inserted as DEFAULT (null), set by the job only.
GRANT INSERT (personal_node_at) ON users TO markbook_app;--> statement-breakpoint

-- Every user has their own node in their personal graph (server/graph/personal-node.ts). Users created
-- before this version have none unless the demo seed wrote it: one background job writes the missing
-- ones (any node's worker runs it; the graph may be Neo4j, which SQL cannot reach).
SELECT app.enqueue_job('graph.personal-nodes', '{}'::jsonb, 'personal-nodes', now(), 8) WHERE EXISTS (SELECT 1 FROM users);
