-- Forgets the speech rate windows that ended before `before` (a key's next take starts a new window
-- anyway); the limiter calls it now and then, not on every take. Called with the service's connection.

CREATE OR REPLACE FUNCTION app.forget_speech_rate_windows(before timestamptz) RETURNS integer
  LANGUAGE sql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
    WITH forgotten AS (DELETE FROM speech_rate_windows WHERE window_start < before RETURNING 1)
    SELECT count(*)::integer FROM forgotten
  $$;
REVOKE ALL ON FUNCTION app.forget_speech_rate_windows(timestamptz) FROM PUBLIC;
