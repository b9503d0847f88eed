-- Failed password sign-ins per key (server/auth/sign-in-throttle.ts). Counts one failure of
-- `failure_key` at `failed_at` and answers the count and until when the key is refused. A count whose
-- forget_at has passed starts again at 1. From `free_failures` failures on, the key waits
-- 2^(failures - free_failures) seconds (at most `max_delay`) after this failure; from `lock_after`
-- failures on it is locked for `lock_for`. The row's lock orders concurrent failures of a key from any
-- node, so none is lost. Only the sign-in functions read and write sign_in_failures (no grant to
-- markbook_app); they are called with the service's connection (a sign-in has no user yet).

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
  $$;
REVOKE ALL ON FUNCTION app.count_sign_in_failure(text, timestamptz, interval, integer, interval, integer, interval) FROM PUBLIC;
