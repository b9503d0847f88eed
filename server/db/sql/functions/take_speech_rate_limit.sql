-- Speech rate limits counted in the database, shared by every app node (server/speech/rate-limits.ts).
-- Takes `take_requests` requests and `take_audio_seconds` seconds of audio for `limit_key` at `taken_at`, in
-- one statement, or nothing. The row's lock orders concurrent takes of a key (on any node), and the
-- limits are checked against the row as it stands after the previous take committed: two takes can
-- never both pass the last slot. The rules (a limit of 0 is no limit):
--   requests: refused when the window's requests plus these would pass the limit;
--   audio: refused when the window's audio plus this would pass the limit and the window already holds
--   some (so the first audio of a window is never refused for its length).
-- A take in an expired window (or of a new key) starts a new window at `taken_at`, and is never refused.
-- Answers whether it was taken and the window as it stands afterwards (refused: as it stands now).
-- Called with the service's connection (API-key checks are a named service-level exception), never as
-- markbook_app; only these functions read and write speech_rate_windows.

CREATE OR REPLACE FUNCTION app.take_speech_rate_limit(
  limit_key text, taken_at timestamptz, window_length interval,
  take_requests integer, request_limit integer,
  take_audio_seconds double precision, audio_limit integer)
  RETURNS TABLE (taken boolean, window_start timestamptz, requests integer, audio_seconds double precision)
  LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp
  AS $$
  #variable_conflict use_column
  BEGIN
    RETURN QUERY
      INSERT INTO speech_rate_windows AS w (key, window_start, requests, audio_seconds)
      VALUES (limit_key, taken_at, take_requests, take_audio_seconds)
      ON CONFLICT (key) DO UPDATE SET
        window_start = CASE WHEN taken_at >= w.window_start + window_length THEN taken_at ELSE w.window_start END,
        requests = CASE WHEN taken_at >= w.window_start + window_length THEN 0 ELSE w.requests END + take_requests,
        audio_seconds = CASE WHEN taken_at >= w.window_start + window_length THEN 0 ELSE w.audio_seconds END + take_audio_seconds
      WHERE taken_at >= w.window_start + window_length
        OR ((take_requests = 0 OR request_limit = 0 OR w.requests + take_requests <= request_limit)
          AND (take_audio_seconds = 0 OR audio_limit = 0 OR w.audio_seconds = 0 OR w.audio_seconds + take_audio_seconds <= audio_limit))
      RETURNING true, w.window_start, w.requests, w.audio_seconds;
    IF NOT FOUND THEN
      -- Refused. A new statement, so a new snapshot: the row as the take that filled it left it.
      RETURN QUERY SELECT false, w.window_start, w.requests, w.audio_seconds FROM speech_rate_windows w WHERE w.key = limit_key;
    END IF;
  END
  $$;
REVOKE ALL ON FUNCTION app.take_speech_rate_limit(text, timestamptz, interval, integer, integer, double precision, integer) FROM PUBLIC;
